import Foundation
import Glibc
import Synchronization

/// A child process started with `posix_spawn`: the one way the tests start processes (curl,
/// openssl, `/bin/sh`, nginx's supervisor). Nothing in the tests may use Foundation's `Process`
/// (`scripts/test.sh` checks).
///
/// Why not `Process`: on Linux, swift-corelibs-foundation's `Process.run()` shares state with
/// its process-manager thread without synchronisation. After `posix_spawn` returns, `run()`
/// assigns `runLoop`, `runLoopSource`, `isRunning` and `processIdentifier`, while the manager
/// thread, woken as soon as the child exits, reads the same fields (`terminateRunLoop()`
/// invalidates `runLoopSource`, `waitpid` uses `processIdentifier`, which may still be 0 and so
/// reap any child). A short-lived child (curl failing fast, openssl) can exit before `run()` has
/// finished; the two threads then race on reference-counted fields, which is the segfault seen in
/// parallel runs (issue 10). A global lock around `run()` would not remove it: the other side of
/// the race is the manager thread reacting to the child's exit, which no caller-held lock covers.
///
/// Here everything the child needs is prepared before `posix_spawn`, and the only state shared
/// between threads (running, or the exit status) is behind a `Mutex`:
/// - one dedicated thread per child waits for it with `waitid(P_PID, pid)` (never "any child",
///   so no other child's status is taken), then reaps it under the lock, so ``send(_:)`` (which
///   also holds the lock) can never signal a recycled pid;
/// - the child keeps descriptors 0–2 only: the file actions end with
///   `posix_spawn_file_actions_addclosefrom_np(3)`, executed in the child after the `dup2`s, so
///   no descriptor that another thread opens meanwhile (close-on-exec or not) can leak into it
///   (a leaked pipe end would keep a reader from ever seeing end-of-file);
/// - no signal is blocked in the child and common ones have their default handlers (a Swift
///   concurrency thread blocks most of them, and the mask would be inherited).
public final class SpawnedProcess: Sendable {
    /// Where one of the child's standard descriptors comes from or goes to.
    public enum Redirection: Sendable {
        /// `/dev/null`.
        case nullDevice
        /// A descriptor of this process, duplicated into the child (the caller keeps and closes it).
        case descriptor(Int32)
    }

    private enum State {
        case running(waiters: [CheckedContinuation<Int32, Never>])
        case exited(status: Int32)
    }

    /// This process's environment without the proxy variables, so that the tools the tests run
    /// (the curl CLI, openssl, nginx) talk to the local servers directly wherever a developer
    /// or CI exported `http_proxy` and friends.
    public static var environmentWithoutProxies: [String: String] {
        ProcessInfo.processInfo.environment.filter { name, _ in
            !["http_proxy", "https_proxy", "all_proxy", "no_proxy"].contains(name.lowercased())
        }
    }

    /// The child's process id.
    public let pid: pid_t
    private let state = Mutex(State.running(waiters: []))

    /// Starts `executable` (an absolute path) with `arguments` (not including argv[0]).
    public init(
        executable: String, arguments: [String],
        environment: [String: String] = SpawnedProcess.environmentWithoutProxies,
        directory: String? = nil,
        input: Redirection = .nullDevice, output: Redirection = .nullDevice, error: Redirection = .nullDevice
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, redirection) in [(Int32(0), input), (1, output), (2, error)] {
            let result: Int32
            switch redirection {
            case .nullDevice:
                result = posix_spawn_file_actions_addopen(
                    &actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let descriptor):
                result = posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
            guard result == 0 else { throw Self.failure("a file action for descriptor \(target)", result) }
        }
        try Self.gnuFileAction("posix_spawn_file_actions_addclosefrom_np", &actions, 3)
        if let directory {
            try directory.withCString { path in
                try Self.gnuFileAction("posix_spawn_file_actions_addchdir_np", &actions, path)
            }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = (argv + [nil]).withUnsafeBufferPointer { argvPointer in
            (envp + [nil]).withUnsafeBufferPointer { envpPointer in
                guard let argvBase = argvPointer.baseAddress, let envpBase = envpPointer.baseAddress else {
                    return EINVAL
                }
                return posix_spawn(&pid, executable, &actions, &attributes, argvBase, envpBase)
            }
        }
        guard result == 0 else { throw Self.failure("cannot start \(executable)", result) }
        self.pid = pid
        let reaper = Thread { [self] in reap() }
        reaper.name = "SpawnedProcess.reaper"
        reaper.start()
    }

    /// Waits (on the reaper thread) until the child exits, then records its status and wakes
    /// every waiter. Only here is the child reaped.
    private func reap() {
        var info = siginfo_t()
        // WNOWAIT: the child stays a zombie, so its pid is not reused until reaped below.
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        let (waiters, status) = state.withLock { state -> ([CheckedContinuation<Int32, Never>], Int32) in
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, 0)
            // WIFEXITED / WEXITSTATUS and WTERMSIG, spelled out (the C macros are not imported).
            let signal = status & 0x7F
            let code: Int32 = reaped != pid ? -1 : signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            guard case .running(let waiters) = state else { return ([], code) }
            state = .exited(status: code)
            return (waiters, code)
        }
        for waiter in waiters { waiter.resume(returning: status) }
    }

    /// Whether the child is still running.
    public var isRunning: Bool {
        state.withLock { state in
            if case .running = state { return true }
            return false
        }
    }

    /// The exit status (128 + the signal number when killed by a signal), or `nil` while running.
    public var exitStatus: Int32? {
        state.withLock { state in
            if case .exited(let status) = state { return status }
            return nil
        }
    }

    /// Waits until the child has exited and returns its ``exitStatus``. Does not block a thread.
    public func waitForExit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = state.withLock { state -> Int32? in
                switch state {
                case .exited(let status):
                    return status
                case .running(var waiters):
                    waiters.append(continuation)
                    state = .running(waiters: waiters)
                    return nil
                }
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Sends `signal` to the child, if it has not been reaped (so never to a recycled pid).
    public func send(_ signal: Int32) {
        state.withLock { state in
            if case .running = state { _ = kill(pid, signal) }
        }
    }

    /// Calls a glibc file-action extension (2.29+/2.34+), looked up at run time because Swift's
    /// Glibc module does not declare GNU extensions. Throws if it is missing or fails: without
    /// closefrom, the child could inherit descriptors.
    private static func gnuFileAction(
        _ name: String, _ actions: inout posix_spawn_file_actions_t, _ argument: Int32
    ) throws {
        typealias Function = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
        guard let symbol = dlsym(nil, name) else { throw TestServerError("\(name) is missing (glibc 2.34+ needed)") }
        let result = unsafeBitCast(symbol, to: Function.self)(&actions, argument)
        guard result == 0 else { throw failure(name, result) }
    }

    private static func gnuFileAction(
        _ name: String, _ actions: inout posix_spawn_file_actions_t, _ argument: UnsafePointer<CChar>
    ) throws {
        typealias Function = @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?
        ) -> Int32
        guard let symbol = dlsym(nil, name) else { throw TestServerError("\(name) is missing (glibc 2.29+ needed)") }
        let result = unsafeBitCast(symbol, to: Function.self)(&actions, argument)
        guard result == 0 else { throw failure(name, result) }
    }

    private static func failure(_ what: String, _ code: Int32) -> TestServerError {
        TestServerError("\(what): \(String(cString: strerror(code)))")
    }
}
