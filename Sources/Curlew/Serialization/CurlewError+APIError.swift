import Foundation
import HTTPTypes

extension CurlewError {
    /// The error body the server sent, decoded as the caller's type: set when an
    /// ``APIErrorDecoder`` (for example through `.decodable(User.self).decodingErrors(as: E.self)`)
    /// decoded it, nil otherwise.
    ///
    /// ```swift
    /// struct ServiceError: Decodable, Error { let code: String; let message: String }
    ///
    /// do {
    ///     let user = try await session.request(url)
    ///         .serialized(by: .decodable(User.self).decodingErrors(as: ServiceError.self)).value
    /// } catch {
    ///     if let apiError = error.apiError(as: ServiceError.self) {
    ///         print(error.status?.code, apiError.code, apiError.message)
    ///         print(error.responseBodyText ?? "", error.responseJSON["details"])
    ///     }
    /// }
    /// ```
    public func apiError<Payload: Error>(as type: Payload.Type) -> Payload? {
        underlying as? Payload
    }

    /// The response body as untyped JSON; ``JSON/null`` when there is no body or it is not
    /// JSON.
    public var responseJSON: JSON {
        guard let responseBody, !responseBody.isEmpty else { return .null }
        return (try? JSON(parsing: responseBody)) ?? .null
    }

    /// The response body as text, in the charset named by `Content-Type` when it is a known
    /// one, else UTF-8 (invalid bytes replaced).
    public var responseBodyText: String? {
        guard let responseBody else { return nil }
        if let charset = responseHead.flatMap(CurlewError.charset(in:)),
            let encoding = String.Encoding(ianaCharsetName: charset),
            let text = String(data: responseBody, encoding: encoding)
        {
            return text
        }
        return String(decoding: responseBody, as: UTF8.self)
    }

    /// The lowercased charset named by a head's `Content-Type`.
    private static func charset(in head: HTTPResponse) -> String? {
        guard let contentType = head.headerFields[.contentType] else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else {
                continue
            }
            return pair[1].trimmingCharacters(in: .whitespaces)
                .trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
        }
        return nil
    }
}
