import CCurlShims
import Foundation
import Synchronization

/// The thread behind a ``ReachabilityMonitor``: one NETLINK_ROUTE socket subscribed to link,
/// address and route changes. It first dumps every link, address and route, then follows the
/// events; it dumps again when the kernel reports lost messages (`ENOBUFS`, a truncated
/// datagram) or a link goes administratively up or down (the kernel drops routes then without
/// telling). It sleeps in `poll` on the socket and a wake pipe, never on Swift's pool.
final class NetlinkMonitorLoop {
    private enum Dump: CaseIterable {
        case links, addresses, routes

        var requestType: UInt16 {
            switch self {
            case .links: curlew_RTM_GETLINK
            case .addresses: curlew_RTM_GETADDR
            case .routes: curlew_RTM_GETROUTE
            }
        }
    }

    private struct InFlight {
        var dump: Dump
        var sequence: UInt32
        var collected = NetworkTables()
        var interrupted = false
    }

    private static let groups = curlew_RTMGRP_LINK | curlew_RTMGRP_IPV4_IFADDR | curlew_RTMGRP_IPV6_IFADDR
        | curlew_RTMGRP_IPV4_ROUTE | curlew_RTMGRP_IPV6_ROUTE
    private static let bufferSize = 1 << 16

    private let socket: Int32
    private let port: UInt32
    private let runner: MonitorRunner
    private let broadcast: PathBroadcast
    private var tables = NetworkTables()
    private var pending: [Dump] = []
    private var inFlight: InFlight?
    private var sequence: UInt32 = 0
    /// Called once: when the first dumps are complete, or when they fail.
    private var report: ((Result<Void, CurlewError>) -> Void)?

    private init(
        socket: Int32, port: UInt32, runner: MonitorRunner, broadcast: PathBroadcast,
        report: @escaping (Result<Void, CurlewError>) -> Void
    ) {
        self.socket = socket
        self.port = port
        self.runner = runner
        self.broadcast = broadcast
        self.report = report
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
        loop.schedule(Dump.allCases)
        loop.run()
        loop.fail(NetlinkError.error("the monitor stopped before its first dump completed", code: -ECANCELED))
    }

    // MARK: The loop

    private func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 8)
        defer { buffer.deallocate() }
        var descriptors = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: runner.wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while !runner.isStopping {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            guard poll(&descriptors, 2, -1) >= 0 || errno == EINTR else {
                fail(NetlinkError.error("poll failed", code: -errno))
                return
            }
            if descriptors[1].revents != 0 { return }
            guard descriptors[0].revents != 0 else { continue }
            var truncated: Int32 = 0
            let received = curlew_netlink_receive(socket, buffer.baseAddress, buffer.count, &truncated)
            if received == -Int(ENOBUFS) || truncated != 0 {
                // The kernel dropped messages (or one did not fit): read everything again.
                resynchronize()
                continue
            }
            if received == -Int(EAGAIN) || received == 0 { continue }
            guard received > 0 else {
                fail(NetlinkError.error("receiving from the NETLINK_ROUTE socket failed", code: Int32(received)))
                return
            }
            for envelope in NetlinkParser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<received])) {
                handle(envelope)
            }
            if report == nil { broadcast.publish(tables) }
            if runner.isStopping || failed { return }
        }
    }

    private var failed = false

    /// Stops the loop; before the first path, `start` fails with `error`.
    private func fail(_ error: CurlewError) {
        failed = true
        if let report {
            self.report = nil
            report(.failure(error))
        }
    }

    private func handle(_ envelope: NetlinkEnvelope) {
        if var flight = inFlight, envelope.port == port, envelope.sequence == flight.sequence {
            if envelope.flags & curlew_NLM_F_DUMP_INTR != 0 { flight.interrupted = true }
            switch envelope.message {
            case .done:
                inFlight = nil
                finish(flight)
            case .error(let code) where code != 0:
                inFlight = nil
                if report != nil {
                    fail(NetlinkError.error("the kernel refused to list the \(flight.dump)", code: code))
                } else {
                    startNextDump()
                }
            default:
                flight.collected.apply(envelope.message)
                inFlight = flight
            }
            return
        }
        if case .overrun = envelope.message {
            resynchronize()
            return
        }
        // An event: it applies to what is being collected too, which may already have passed it.
        let change = tables.apply(envelope.message)
        inFlight?.collected.apply(envelope.message)
        if change.contains(.administrativeState) { schedule([.addresses, .routes]) }
    }

    private func finish(_ flight: InFlight) {
        if flight.interrupted {
            pending.insert(flight.dump, at: 0)
        } else {
            switch flight.dump {
            case .links: tables.replaceLinks(with: flight.collected)
            case .addresses: tables.replaceAddresses(with: flight.collected)
            case .routes: tables.replaceRoutes(with: flight.collected)
            }
        }
        startNextDump()
        if inFlight == nil, let report {
            self.report = nil
            broadcast.publish(tables)
            report(.success(()))
        }
    }

    private func resynchronize() {
        schedule(Dump.allCases)
    }

    /// Queues dumps; one already running for the same kind starts over, since it may have
    /// passed entries that changed.
    private func schedule(_ dumps: [Dump]) {
        for dump in dumps {
            if inFlight?.dump == dump {
                inFlight?.interrupted = true
            } else if !pending.contains(dump) {
                pending.append(dump)
            }
        }
        if inFlight == nil { startNextDump() }
    }

    private func startNextDump() {
        guard inFlight == nil, !pending.isEmpty else { return }
        let dump = pending.removeFirst()
        sequence &+= 1
        let result = curlew_netlink_request_dump(socket, dump.requestType, sequence)
        guard result == 0 else {
            fail(NetlinkError.error("cannot ask the kernel for its \(dump)", code: result))
            return
        }
        inFlight = InFlight(dump: dump, sequence: sequence)
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
