import Foundation
import HTTPTypes

/// Turns an unacceptable response into a ``CurlewError`` of kind
/// ``CurlewError/Kind/unacceptableStatus`` whose `underlying` error is the body decoded as
/// the caller's error type, as HTTPTransport's `ClarifyErrorInterceptor` does.
///
/// The error keeps the status, head, body data and URL; read the decoded body with
/// ``CurlewError/apiError(as:)``, the text with ``CurlewError/responseBodyText`` and the JSON
/// with ``CurlewError/responseJSON``. When the body does not decode as `Payload`, the error
/// is the same kind with the `DecodingError` underneath.
public struct APIErrorDecoder<Payload: Decodable & Error>: Sendable {
    /// The decoder for the error body.
    let decoder: JSONDecoder
    /// Runs on the error body first.
    let preprocessor: any DataPreprocessor

    /// Creates the decoder.
    public init(
        _ type: Payload.Type = Payload.self, decoder: JSONDecoder = JSONDecoder(),
        preprocessor: any DataPreprocessor = PassthroughPreprocessor()
    ) {
        self.decoder = decoder
        self.preprocessor = preprocessor
    }

    /// The error for a response already judged unacceptable.
    public func error(for response: Response<Data>) -> CurlewError {
        error(url: response.url, head: response.head, body: response.value)
    }

    /// The error for an unacceptable response given by its parts, for use in a validation.
    public func error(url: URL?, head: HTTPResponse, body: Data?) -> CurlewError {
        let status = "HTTP \(head.status.code)"
        let body = body ?? Data()
        do {
            let payload = try decoder.decode(Payload.self, from: try preprocessor.preprocess(body))
            return CurlewError(
                .unacceptableStatus, "\(status): the server reported \(Payload.self)", url: url,
                responseHead: head, responseBody: body, underlying: payload)
        } catch {
            let reason = body.isEmpty ? "an empty body" : "a body that is not a valid \(Payload.self)"
            return CurlewError(
                .unacceptableStatus, "\(status) with \(reason)", url: url, responseHead: head,
                responseBody: body, underlying: error)
        }
    }

    /// Throws ``error(for:)`` unless the status is in `acceptableStatusCodes`.
    public func validate(_ response: Response<Data>, acceptableStatusCodes: Range<Int> = 200..<300) throws(CurlewError) {
        if !acceptableStatusCodes.contains(response.status.code) {
            throw error(for: response)
        }
    }
}
