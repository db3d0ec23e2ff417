import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Standard output and error: whether each is a terminal, and unbuffered writes to them.
enum Terminal {
    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether colours are allowed at all: `NO_COLOR` (https://no-color.org) set to anything
    /// non-empty, or `TERM=dumb`, turns them off.
    static var coloursAllowed: Bool {
        let environment = ProcessInfo.processInfo.environment
        if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }

    /// The terminal's width in columns (80 when unknown).
    static var standardErrorColumns: Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    static func write(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
        write(Data(text.utf8), to: descriptor)
    }

    /// Writes all of `data`, retrying short writes and EINTR. A closed pipe (EPIPE) ends the
    /// program quietly, as other tools do when their reader stops.
    static func write(_ data: Data, to descriptor: Int32 = STDOUT_FILENO) {
        if writeAll(data, to: descriptor) == EPIPE { exit(0) }
    }

    /// Writes all of `data` to `descriptor`, retrying short writes and EINTR; returns 0, or the
    /// `errno` that stopped it.
    static func writeAll(_ data: Data, to descriptor: Int32) -> Int32 {
        data.withUnsafeBytes { raw -> Int32 in
            guard var pointer = raw.baseAddress else { return 0 }
            var remaining = raw.count
            while remaining > 0 {
                let written = Glibc.write(descriptor, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                pointer += written
                remaining -= written
            }
            return 0
        }
    }

    /// One line on standard error: `curlew: <message>`.
    static func complain(_ message: String) {
        write("curlew: \(message)\n", to: STDERR_FILENO)
    }
}
