import Foundation
import HTTPTypes

/// Reads a token endpoint's answer (RFC 6749 §5.1 success, §5.2 error).
enum OAuth2TokenResponse {
    static func credential(from response: Response<Data>, replacing previous: OAuth2Credential, now: Date = Date())
        throws(CurlewError) -> OAuth2Credential
    {
        if (300..<400).contains(response.status.code) {
            let target = response.head.headerFields[.location].map { " to \(Redaction.string($0))" } ?? ""
            throw failure(
                response,
                "the token endpoint answered \(response.status.code) with a redirect\(target), which a token request never follows: the refresh token and the client's credentials go to the token URL only")
        }
        let object = (try? JSONSerialization.jsonObject(with: response.value)) as? [String: Any]
        guard (200..<300).contains(response.status.code) else {
            throw refusal(response, object)
        }
        guard let object else {
            throw failure(response, "the token endpoint's answer is not a JSON object")
        }
        guard let accessToken = object["access_token"] as? String, !accessToken.isEmpty else {
            throw failure(response, "the token endpoint's answer has no access_token")
        }
        guard accessToken.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw failure(response, "the access_token contains characters that cannot be sent in a header")
        }
        let tokenType = (object["token_type"] as? String) ?? "Bearer"
        guard tokenType.lowercased() == "bearer" else {
            throw failure(response, "the token type '\(tokenType)' is not supported; only Bearer tokens are")
        }
        var expiresAt: Date?
        if let seconds = number(object["expires_in"]) {
            guard seconds.isFinite, seconds >= 0 else {
                throw failure(response, "expires_in is not a valid number of seconds")
            }
            expiresAt = now.addingTimeInterval(min(seconds, 100 * 365 * 86_400))
        }
        let rotated = (object["refresh_token"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        return OAuth2Credential(
            accessToken: accessToken, refreshToken: rotated ?? previous.refreshToken, expiresAt: expiresAt,
            tokenType: "Bearer", scope: (object["scope"] as? String) ?? previous.scope)
    }

    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let number as NSNumber: return number.doubleValue
        case let text as String: return Double(text)
        default: return nil
        }
    }

    /// An error answer: the OAuth error code and description when there are some.
    private static func refusal(_ response: Response<Data>, _ object: [String: Any]?) -> CurlewError {
        let status = "HTTP \(response.status.code)"
        guard let code = object?["error"] as? String else {
            return failure(response, "the token endpoint refused to refresh the token (\(status))")
        }
        var message = "the token endpoint refused to refresh the token: \(code)"
        if let description = object?["error_description"] as? String, !description.isEmpty {
            message += " (\(description))"
        }
        return failure(response, message + " [\(status)]")
    }

    /// The error carries the answer's head and body, its secrets (tokens a refused answer
    /// may still hold) replaced by `***`.
    private static func failure(_ response: Response<Data>, _ message: String) -> CurlewError {
        let body = Redaction.body(
            response.value, contentType: response.head.headerFields[.contentType], secrets: Redaction.secretFieldNames,
            placeholder: Redaction.placeholder)
        return CurlewError(.authenticationFailed, message, url: response.url, responseHead: response.head, responseBody: body)
    }
}
