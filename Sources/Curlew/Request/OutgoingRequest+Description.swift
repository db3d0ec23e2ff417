import Foundation
import HTTPTypes

/// `print`, `debugPrint`, `dump` and string interpolation of a request, secrets redacted as
/// everywhere Curlew prints (see ``Request/cURLDescription(revealingSecrets:)``): the password
/// of the URL and the values of secret query parameters, `Authorization`,
/// `Proxy-Authorization` and `Cookie` values, and secret fields of JSON and form bodies (such
/// as `password` and `access_token`).
extension OutgoingRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The method and URL: `GET https://api.example.com/users/42`.
    public var description: String {
        "\(method.rawValue) \(Redaction.string(url))"
    }

    /// The method and URL, the header fields and the body, in the layout of
    /// ``Response/debugDescription``:
    ///
    /// ```
    /// [Request]: POST https://api.example.com/token
    ///     [Headers]:
    ///         Authorization: Basic ***
    ///         Content-Type: application/x-www-form-urlencoded
    ///     [Body]:
    ///         grant_type=password&username=ann&password=***
    /// ```
    public var debugDescription: String {
        printedLines.joined(separator: "\n")
    }

    /// The fields as a struct that stored them would show them (`dump`, debuggers), with the
    /// same redactions: the URL and header lines as text, the body as `debugDescription`
    /// shows it.
    public var customMirror: Mirror {
        let headerLines = headerFields.map { "\($0.name.rawName): \(Redaction.headerValue($0))" }
        let bodyText = body == nil ? "None" : PrintedText.requestBody(self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Mirror(
            self,
            children: [
                "url": Redaction.string(url), "method": method, "headerFields": headerLines, "body": bodyText,
                "options": options,
            ],
            displayStyle: .struct)
    }

    /// The `[Request]`, `[Headers]` and `[Body]` lines of ``debugDescription``.
    var printedLines: [String] {
        ["[Request]: \(description)"] + PrintedText.headerLines(headerFields) + ["    [Body]:" + PrintedText.requestBody(self)]
    }
}
