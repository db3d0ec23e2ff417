import CCurlShims
import Foundation
import Synchronization

/// The thread behind a ``ReachabilityMonitor``: one NETLINK_ROUTE socket subscribed to link,
/// address and route changes, kept in step by a ``NetlinkSynchronizer`` (first dumps, then
/// events, dumps again when messages were lost). The thread sleeps in `poll` on the socket and
/// a wake pipe, never on Swift's pool, and publishes the path after every datagram.
final class NetlinkMonitorLoop {
    private static let groups = curlew_RTMGRP_LINK | curlew_RTMGRP_IPV4_IFADDR | curlew_RTMGRP_IPV6_IFADDR
        | curlew_RTMGRP_IPV4_ROUTE | curlew_RTMGRP_IPV6_ROUTE
    /// Larger than any datagram the kernel sends (a dump's are at most about 32 KiB).
    private static let bufferSize = 1 << 16

    private let socket: Int32
    private let runner: MonitorRunner
    private let broadcast: PathBroadcast
    private var synchronizer: NetlinkSynchronizer
    /// Called once: when the first dumps are complete, or when the loop stops before.
    private var report: ((Result<Void, CurlewError>) -> Void)?
    private var stopped = false

    private init(
        socket: Int32, port: UInt32, runner: MonitorRunner, broadcast: PathBroadcast,
        report: @escaping (Result<Void, CurlewError>) -> Void
    ) {
        self.socket = socket
        self.runner = runner
        self.broadcast = broadcast
        self.report = report
        synchronizer = NetlinkSynchronizer(port: port)
    }

    /// Starts the thread (in the network namespace at `namespacePath`, for tests) and returns
    /// once the first path is published.
    static func start(namespacePath: String?, broadcast: PathBroadcast) async throws(CurlewError) -> MonitorRunner {
        let runner = try MonitorRunner()
        let started: Result<Void, CurlewError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                run(namespacePath: namespacePath, runner: runner, broadcast: broadcast) { continuation.resume(returning: $0) }
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
        try started.get()
        return runner
    }

    private static func run(
        namespacePath: String?, runner: MonitorRunner, broadcast: PathBroadcast,
        report: @escaping (Result<Void, CurlewError>) -> Void
    ) {
        curlew_name_current_thread("Curlew.Netlink")
        defer {
            broadcast.finish()
            runner.exited()
        }
        if let namespacePath {
            let code = curlew_enter_network_namespace(namespacePath)
            guard code == 0 else {
                report(.failure(NetlinkError.error("cannot enter the network namespace \(namespacePath)", code: code)))
                return
            }
        }
        var port: UInt32 = 0
        let socket = curlew_netlink_open(groups, &port)
        guard socket >= 0 else {
            report(.failure(NetlinkError.error("cannot open a NETLINK_ROUTE socket", code: socket)))
            return
        }
        defer { close(socket) }
        let loop = NetlinkMonitorLoop(socket: socket, port: port, runner: runner, broadcast: broadcast, report: report)
        loop.perform(loop.synchronizer.start())
        loop.run()
        loop.stop(NetlinkError.error("the monitor stopped before its first dump completed", code: -ECANCELED))
    }

    private func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 8)
        defer { buffer.deallocate() }
        var descriptors = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: runner.wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while !stopped, !runner.isStopping {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            guard poll(&descriptors, 2, -1) >= 0 || errno == EINTR else {
                stop(NetlinkError.error("poll failed", code: -errno))
                return
            }
            if descriptors[1].revents != 0 { return }
            guard descriptors[0].revents != 0 else { continue }
            var truncated: Int32 = 0
            let received = curlew_netlink_receive(socket, buffer.baseAddress, buffer.count, &truncated)
            if received == -Int(ENOBUFS) || truncated != 0 {
                perform(synchronizer.lostMessages())
                continue
            }
            if received == -Int(EAGAIN) || received == 0 { continue }
            guard received > 0 else {
                stop(NetlinkError.error("receiving from the NETLINK_ROUTE socket failed", code: Int32(received)))
                return
            }
            let envelopes = NetlinkParser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<received]))
            perform(synchronizer.receive(envelopes))
            if synchronizer.isReady { broadcast.publish(synchronizer.tables) }
        }
    }

    private func perform(_ actions: [NetlinkSynchronizer.Action]) {
        for action in actions {
            switch action {
            case .requestDump(let dump, let sequence):
                let result = curlew_netlink_request_dump(socket, dump.requestType, sequence)
                if result != 0 { stop(NetlinkError.error("cannot ask the kernel for its \(dump)", code: result)) }
            case .ready:
                broadcast.publish(synchronizer.tables)
                report?(.success(()))
                report = nil
            case .fail(let dump, let code):
                stop(NetlinkError.error("the kernel refused to list its \(dump)", code: code))
            }
        }
    }

    /// Ends the loop; before the first path, `start` fails with `error`.
    private func stop(_ error: CurlewError) {
        stopped = true
        report?(.failure(error))
        report = nil
    }
}

/// The handle on a monitor's thread: a wake pipe to stop it, and a way to wait for it to exit.
final class MonitorRunner: Sendable {
    private struct State {
        var stopping = false
        var exited = false
        var writeEnd: Int32
        var joiners: [CheckedContinuation<Void, Never>] = []
    }

    /// The read end of the wake pipe; owned by the thread, closed when it exits.
    let wakeDescriptor: Int32
    private let state: Mutex<State>

    init() throws(CurlewError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw NetlinkError.error("cannot make a pipe", code: -errno) }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        wakeDescriptor = ends[0]
        state = Mutex(State(writeEnd: ends[1]))
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Asks the thread to stop; it exits soon after.
    func stop() {
        state.withLock { state in
            guard !state.stopping, !state.exited else { return }
            state.stopping = true
            var byte: UInt8 = 1
            _ = write(state.writeEnd, &byte, 1)
        }
    }

    /// Stops the thread and waits until it has exited, without blocking a thread.
    func join() async {
        stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.exited { return true }
                state.joiners.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Called by the thread as it exits: closes the pipe and resumes the joiners.
    func exited() {
        let joiners = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.exited = true
            close(state.writeEnd)
            close(wakeDescriptor)
            defer { state.joiners.removeAll() }
            return state.joiners
        }
        for joiner in joiners { joiner.resume() }
    }
}

/// Errors of the netlink layer.
enum NetlinkError {
    /// A ``CurlewError/Kind/transport`` error for a failed call; `code` is a negative errno.
    static func error(_ what: String, code: Int32) -> CurlewError {
        CurlewError(.transport, "\(what): \(String(cString: strerror(-code))) (errno \(-code))")
    }
}
