import Foundation
import Synchronization

@testable import Curlew

/// An event monitor that reports when a request starts waiting for connectivity, and records
/// how many attempts finished requests took.
final class ConnectivityRecorder: EventMonitor {
    let waits: AsyncStream<NetworkPath>
    private let continuation: AsyncStream<NetworkPath>.Continuation
    private let finished = Mutex<[Int]>([])
    private let retries = Mutex(0)
    private let waitsReported = Mutex(0)

    init() {
        (waits, continuation) = AsyncStream.makeStream(of: NetworkPath.self)
    }

    func request(_ id: RequestID, isWaitingForConnectivity request: OutgoingRequest, path: NetworkPath, attempt: Int) {
        waitsReported.withLock { $0 += 1 }
        continuation.yield(path)
    }

    func request(
        _ id: RequestID, willRetry request: OutgoingRequest, after error: CurlewError, attempt: Int, delay: Duration
    ) {
        retries.withLock { $0 += 1 }
    }

    func request(
        _ id: RequestID, didFinish request: OutgoingRequest?, with result: Result<TransferCompletion, CurlewError>,
        attempts: Int
    ) {
        finished.withLock { $0.append(attempts) }
    }

    /// The attempts of every finished request, in finishing order.
    var finishedAttempts: [Int] { finished.withLock { $0 } }
    /// How many waits for connectivity were reported.
    var waitCount: Int { waitsReported.withLock { $0 } }
    /// How many retries were announced.
    var retryCount: Int { retries.withLock { $0 } }
}

/// The first element of `stream`, or nil when none comes within `limit` (a bound on failure,
/// never what orders a test).
func first<T: Sendable>(of stream: AsyncStream<T>, within limit: Duration = .seconds(30)) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask {
            for await element in stream { return element }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let winner = await group.next() ?? nil
        group.cancelAll()
        return winner
    }
}

/// Returns true once at least `count` tasks wait on `monitor` for a satisfied path, false when
/// that does not happen within `limit`.
func waiters(on monitor: ReachabilityMonitor, atLeast count: Int, within limit: Duration = .seconds(30)) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            await monitor.broadcast.untilWaiting(atLeast: count)
            return true
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return false
        }
        let winner = await group.next() ?? false
        group.cancelAll()
        return winner
    }
}

enum TestPaths {
    static let online = NetworkPath(
        status: .satisfied,
        interfaces: [
            NetworkInterface(
                index: 2, name: "eth0", isLoopback: false,
                addresses: [.init(address: "192.0.2.10", prefixLength: 24, isIPv6: false)])
        ],
        hasIPv4DefaultRoute: true, hasIPv6DefaultRoute: false)
    static let offline = NetworkPath(
        status: .unsatisfied,
        interfaces: [
            NetworkInterface(
                index: 1, name: "lo", isLoopback: true,
                addresses: [.init(address: "127.0.0.1", prefixLength: 8, isIPv6: false)])
        ],
        hasIPv4DefaultRoute: false, hasIPv6DefaultRoute: false)
}
