import Foundation
import HTTPTypes

/// `print(response)` and `debugPrint(response)`, after Alamofire's `DataResponse`.
extension Response: CustomStringConvertible, CustomDebugStringConvertible {
    /// The most body bytes (or value characters) `debugDescription` shows.
    static var previewLimit: Int { 2048 }

    /// The method, the final URL and the status: `GET https://host/path (200)`. A password in
    /// the URL shows as `***`.
    public var description: String {
        "\(request.method.rawValue) \(Redaction.string(url)) (\(status.code))"
    }

    /// The request as last sent and the response, in Alamofire's layout:
    ///
    /// ```
    /// [Request]: GET https://api.example.com/users/42
    ///     [Headers]:
    ///         Authorization: Bearer ***
    ///     [Body]: None
    /// [Response]: 200
    ///     [Headers]:
    ///         Content-Type: application/json
    ///     [Body]:
    ///         {"id":42,"name":"Ann"}
    /// [Network Duration]: 12.3 ms (HTTP/1.1, new connection)
    /// ```
    ///
    /// The value follows as `[Value]:` when it is not the body itself, and redirects and
    /// attempts when there was more than one. Bodies and values show their first
    /// 2 KiB; binary bodies only their size. Secrets are redacted: a password in the URL,
    /// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` values, and in JSON and
    /// form bodies the fields ``LoggingEventMonitor/defaultRedactedBodyFields`` lists (such as
    /// `access_token`). A value of your own type is shown as it describes itself.
    public var debugDescription: String {
        var lines = ["[Request]: \(request.method.rawValue) \(Redaction.string(request.url))"]
        lines += Self.headerLines(request.headerFields)
        lines.append("    [Body]:" + Self.requestBody(request))
        lines.append("[Response]: \(status.code)\(status.reasonPhrase.isEmpty ? "" : " " + status.reasonPhrase)")
        lines += Self.headerLines(head.headerFields)
        let contentType = head.headerFields[.contentType]
        if let body = value as? Data {
            lines.append("    [Body]:" + Self.preview(body, contentType: contentType))
        } else if let text = value as? String {
            lines.append("    [Body]:" + Self.preview(Data(text.utf8), contentType: contentType))
        } else {
            lines.append("[Value]: " + Self.truncated(String(describing: value)))
        }
        if !redirects.isEmpty { lines.append("[Redirects]: \(redirects.count)") }
        if attempts > 1 { lines.append("[Attempts]: \(attempts)") }
        lines.append("[Network Duration]: " + Self.duration(metrics))
        return lines.joined(separator: "\n")
    }

    /// `    [Headers]: None`, or one indented line per field, credentials redacted.
    private static func headerLines(_ fields: HTTPFields) -> [String] {
        guard !fields.isEmpty else { return ["    [Headers]: None"] }
        return ["    [Headers]:"] + fields.map { "        \($0.name.rawName): \(Redaction.headerValue($0))" }
    }

    /// What follows a request's `[Body]:` label (see ``preview(_:contentType:)``).
    private static func requestBody(_ request: OutgoingRequest) -> String {
        guard let body = request.body else { return " None" }
        switch body.storage {
        case .data(let data): return preview(data, contentType: request.headerFields[.contentType])
        case .file(let url): return " the file \(url.path)"
        case .stream: return body.length.map { " a stream of \($0) bytes" } ?? " a stream"
        }
    }

    /// What follows a body's `[Body]:` label: the text on the lines after it, its size when it
    /// is binary, or ` None`.
    private static func preview(_ body: Data, contentType: String?) -> String {
        guard !body.isEmpty else { return " None" }
        let shown = Redaction.body(
            body, contentType: contentType, secrets: Redaction.secretBodyFields, placeholder: Redaction.placeholder)
        // A cut may split a UTF-8 sequence: up to three bytes more are dropped to find a boundary.
        let text = (0...3).lazy.compactMap { String(data: shown.prefix(previewLimit - $0), encoding: .utf8) }.first
        guard let text, !text.contains("\0") else { return " \(body.count) bytes" }
        let more = shown.count - text.utf8.count
        let indented = text.split(separator: "\n", omittingEmptySubsequences: false).map { "\n        " + $0 }.joined()
        return indented + (more > 0 ? "\n        … \(more) more bytes" : "")
    }

    private static func truncated(_ text: String) -> String {
        guard text.count > previewLimit else { return text }
        return text.prefix(previewLimit) + "… (\(text.count - previewLimit) more characters)"
    }

    private static func duration(_ metrics: TransferMetrics) -> String {
        let (seconds, attoseconds) = metrics.total.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        let connection = metrics.connectionReused ? "reused connection" : "new connection"
        return String(format: "%.1f ms", milliseconds) + " (\(metrics.httpVersion.rawValue), \(connection))"
    }
}
