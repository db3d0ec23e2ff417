import Foundation
import Glibc
import Synchronization

/// A child process started with `posix_spawn`, for long-lived fixtures such as nginx.
///
/// Unlike Foundation's `Process`, the child gets a clean start: no signals blocked (a Swift
/// concurrency thread blocks most of them, and the mask would be inherited), default signal
/// handlers, and no file descriptors except its standard input, output and error (so it cannot
/// keep this process's sockets, such as a closed test server's listener, alive).
final class SpawnedProcess: Sendable {
    /// What is known about the child's state.
    private enum State {
        case running
        case exited(status: Int32)
    }

    /// The child's process id.
    let pid: pid_t
    private let state = Mutex(State.running)

    /// Starts `executable` with `arguments` (not including argv[0]) and `environment`, with its
    /// standard input from `input` and standard output and error to `output` (descriptors of
    /// this process, duplicated into the child).
    init(
        executable: String, arguments: [String], environment: [String: String],
        input: Int32, output: Int32
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        Self.closeInheritedDescriptors(in: &actions)

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
        guard result == 0 else {
            throw TestServerError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    /// Adds actions closing every descriptor above 2 in the child: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34+, looked up at run time because Swift's
    /// Glibc module does not declare GNU extensions), else one close per descriptor open now.
    private static func closeInheritedDescriptors(in actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            if closeFrom(&actions, 3) == 0 { return }
        }
        // glibc ignores a close action for a descriptor that is no longer open by spawn time.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    deinit {
        // Reap the child if it has exited, so no zombie is left behind.
        _ = isRunning
    }

    /// Whether the child is still running; reaps it once it has exited.
    var isRunning: Bool {
        state.withLock { state in
            guard case .running = state else { return false }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                // WIFEXITED / WEXITSTATUS and WTERMSIG, spelled out (the C macros are not imported).
                let signal = status & 0x7F
                state = .exited(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
                return false
            }
            if result < 0 && errno == ECHILD {
                state = .exited(status: -1)
                return false
            }
            return true
        }
    }

    /// The exit status (128 + the signal number when killed by a signal), or `nil` while running.
    var exitStatus: Int32? {
        guard !isRunning else { return nil }
        return state.withLock { state in
            if case .exited(let status) = state { return status }
            return nil
        }
    }

    /// Sends `signal` to the child, if it is still running.
    func send(_ signal: Int32) {
        if isRunning {
            kill(pid, signal)
        }
    }
}
