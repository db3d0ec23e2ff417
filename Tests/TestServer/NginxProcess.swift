import Foundation
import Glibc
import Synchronization

/// A running nginx, tied to this process's lifetime.
///
/// nginx runs under a small `/bin/sh` supervisor whose standard input is a pipe from this
/// process (the "lifeline"). When the lifeline closes, because ``kill()`` was called or because
/// this process died, however abruptly, the supervisor SIGKILLs nginx, so no nginx outlives the
/// tests. When nginx exits by itself (a bad configuration, a port in use), the supervisor exits
/// with its status. nginx keeps no state worth a graceful exit here.
final class NginxProcess: Sendable {
    /// The supervisor script: `$0` is nginx, `$@` its arguments, fd 0 the lifeline.
    private static let supervisorScript = """
        exec 3<&0
        "$0" "$@" </dev/null 3<&- &
        child=$!
        ( read -r _ <&3; kill -9 "$child" 2>/dev/null ) &
        watcher=$!
        wait "$child"
        status=$?
        kill -9 "$watcher" 2>/dev/null
        exit "$status"
        """

    private let supervisor: SpawnedProcess
    /// The write end of the lifeline; `nil` once closed.
    private let lifeline: Mutex<Int32?>

    /// Starts `nginx` with `arguments`, sending its output to the descriptor `output`.
    init(nginx: String, arguments: [String], output: Int32) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw TestServerError("pipe() failed: errno \(errno)")
        }
        // Children started elsewhere must not inherit the lifeline, or it would never close.
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        defer { close(ends[0]) }  // Only the supervisor keeps the read end.
        do {
            supervisor = try SpawnedProcess(
                executable: "/bin/sh", arguments: ["-c", Self.supervisorScript, nginx] + arguments,
                input: .descriptor(ends[0]), output: .descriptor(output), error: .descriptor(output))
        } catch {
            close(ends[1])
            throw error
        }
        lifeline = Mutex(ends[1])
    }

    deinit {
        cutLifeline()
    }

    /// Whether nginx (or its supervisor) is still running.
    var isRunning: Bool { supervisor.isRunning }

    /// nginx's exit status once it has exited, else `nil`.
    var exitStatus: Int32? { supervisor.exitStatus }

    /// Kills nginx and waits until the supervisor has exited (SIGKILLed if the lifeline has not
    /// ended it within three seconds).
    func kill() async {
        cutLifeline()
        let supervisor = supervisor
        let backstop = Task {
            try await Task.sleep(for: .seconds(3))
            supervisor.send(SIGKILL)
        }
        _ = await supervisor.waitForExit()
        backstop.cancel()
    }

    /// Closes the lifeline, which makes the supervisor kill nginx. Calling it again does nothing.
    func cutLifeline() {
        let descriptor = lifeline.withLock { descriptor in
            defer { descriptor = nil }
            return descriptor
        }
        if let descriptor {
            close(descriptor)
        }
    }
}
