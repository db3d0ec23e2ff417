import Foundation
import HTTPTypes

/// `print(response)` and `debugPrint(response)`, after Alamofire's `DataResponse`.
extension Response: CustomStringConvertible, CustomDebugStringConvertible {
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
        var lines = request.printedLines
        lines.append("[Response]: \(status.code)\(status.reasonPhrase.isEmpty ? "" : " " + status.reasonPhrase)")
        lines += PrintedText.headerLines(head.headerFields)
        let contentType = head.headerFields[.contentType]
        if let body = value as? Data {
            lines.append("    [Body]:" + PrintedText.preview(body, contentType: contentType))
        } else if let text = value as? String {
            lines.append("    [Body]:" + PrintedText.preview(Data(text.utf8), contentType: contentType))
        } else {
            lines.append("[Value]: " + PrintedText.truncated(String(describing: value)))
        }
        if !redirects.isEmpty { lines.append("[Redirects]: \(redirects.count)") }
        if attempts > 1 { lines.append("[Attempts]: \(attempts)") }
        lines.append("[Network Duration]: " + Self.duration(metrics))
        return lines.joined(separator: "\n")
    }

    private static func duration(_ metrics: TransferMetrics) -> String {
        let (seconds, attoseconds) = metrics.total.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        let connection = metrics.connectionReused ? "reused connection" : "new connection"
        return String(format: "%.1f ms", milliseconds) + " (\(metrics.httpVersion.rawValue), \(connection))"
    }
}
