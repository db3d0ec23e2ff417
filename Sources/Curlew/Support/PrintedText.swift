import Foundation
import HTTPTypes

/// The layout `debugPrint` gives requests and responses (after Alamofire's), secrets redacted
/// by ``Redaction``.
enum PrintedText {
    /// The most body bytes (or value characters) a description shows.
    static let previewLimit = 2048

    /// `    [Headers]: None`, or one indented line per field, credentials redacted.
    static func headerLines(_ fields: HTTPFields) -> [String] {
        guard !fields.isEmpty else { return ["    [Headers]: None"] }
        return ["    [Headers]:"] + fields.map { "        \($0.name.rawName): \(Redaction.headerValue($0))" }
    }

    /// What follows a request's `[Body]:` label (see ``preview(_:contentType:)``).
    static func requestBody(_ request: OutgoingRequest) -> String {
        guard let body = request.body else { return " None" }
        switch body.storage {
        case .data(let data): return preview(data, contentType: request.headerFields[.contentType])
        case .file(let url): return " the file \(url.path)"
        case .stream: return body.length.map { " a stream of \($0) bytes" } ?? " a stream"
        }
    }

    /// What follows a body's `[Body]:` label: the text on the lines after it, secret fields
    /// redacted, its size when it is binary, or ` None`.
    static func preview(_ body: Data, contentType: String?) -> String {
        guard !body.isEmpty else { return " None" }
        let shown = Redaction.body(
            body, contentType: contentType, secrets: Redaction.secretFieldNames, placeholder: Redaction.placeholder)
        // A cut may split a UTF-8 sequence: up to three bytes more are dropped to find a boundary.
        let text = (0...3).lazy.compactMap { String(data: shown.prefix(previewLimit - $0), encoding: .utf8) }.first
        guard let text, !text.contains("\0") else { return " \(body.count) bytes" }
        let more = shown.count - text.utf8.count
        let indented = text.split(separator: "\n", omittingEmptySubsequences: false).map { "\n        " + $0 }.joined()
        return indented + (more > 0 ? "\n        … \(more) more bytes" : "")
    }

    /// `text`, cut after ``previewLimit`` characters with a note of how many more there were.
    static func truncated(_ text: String) -> String {
        guard text.count > previewLimit else { return text }
        return text.prefix(previewLimit) + "… (\(text.count - previewLimit) more characters)"
    }
}
