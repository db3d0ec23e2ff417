import CCurlShims
import HTTPTypes
import Synchronization

/// The wire trace's text with secrets redacted by ``Redaction``, the rules of
/// `cURLDescription()`: header values of secret fields, passwords in URLs, secret query values.
enum WireTraceRedaction {
    /// Debug callbacks that reached an untraced hop; always 0 unless a handle kept its trace.
    static let untracedCallbacks = Atomic<Int>(0)

    static func kind(of type: curl_infotype) -> WireTraceRecord.Kind? {
        switch type {
        case CURLINFO_TEXT: return .text
        case CURLINFO_HEADER_OUT: return .requestHead
        case CURLINFO_HEADER_IN: return .responseHead
        case CURLINFO_DATA_OUT: return .requestBody
        case CURLINFO_DATA_IN: return .responseBody
        case CURLINFO_SSL_DATA_OUT: return .tlsOut
        case CURLINFO_SSL_DATA_IN: return .tlsIn
        default: return nil
        }
    }

    /// The lines of `text` (CRLF or LF ends, the blank line that ends a head dropped), each
    /// redacted.
    static func lines(_ text: String) -> [String] {
        text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
            .map { redacted(String($0)) }
    }

    /// A header field line with its value redacted as ``Redaction/headerValue(_:)`` does; any
    /// other line (a request or status line, libcurl's text) with the URLs in it redacted.
    static func redacted(_ line: String) -> String {
        if let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) {
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            guard Redaction.isSecretHeader(name) else { return line }
            return "\(line[..<colon]): \(Redaction.headerValue(HTTPField(name: name, value: String(value))))"
        }
        // Each word that could be a URL or a request target, redacted on its own.
        return line.split(separator: " ", omittingEmptySubsequences: false).map { word in
            word.contains("?") || word.contains("@") ? Redaction.string(String(word)) : String(word)
        }.joined(separator: " ")
    }
}
