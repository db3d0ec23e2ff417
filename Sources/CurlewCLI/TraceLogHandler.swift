import Foundation
import Logging

/// `--trace`: each wire-trace record's text on standard error, as `curl -v` prints it, without
/// a logger's timestamp and label.
struct TraceLogHandler: LogHandler {
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var text = "\(event.message)"
        if text.hasPrefix("[Curlew] ") { text.removeFirst("[Curlew] ".count) }
        Terminal.write(text.hasSuffix("\n") ? text : text + "\n", to: STDERR_FILENO)
    }
}
