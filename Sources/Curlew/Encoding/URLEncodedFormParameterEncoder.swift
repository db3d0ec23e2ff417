import Foundation
import HTTPTypes

/// Writes parameters as `application/x-www-form-urlencoded` text into the URL query or the
/// body of a request.
///
/// With the query as destination the text is appended to any query already in the URL
/// (`?page=2` becomes `?page=2&q=swift`); a fragment stays in place. With the body as
/// destination, the body is replaced and `Content-Type` is set to
/// `application/x-www-form-urlencoded; charset=utf-8` unless the caller set one.
public struct URLEncodedFormParameterEncoder: ParameterEncoder {
    /// Where the encoded text goes.
    public enum Destination: Sendable, Hashable {
        /// The query for GET, HEAD and DELETE requests, the body for any other method. The
        /// default.
        case methodDependent
        /// Always the URL query (as ``ParameterSet/Encoding/query``).
        case query
        /// Always the body, as `application/x-www-form-urlencoded` (as
        /// ``ParameterSet/Encoding/form``).
        case form

        /// Whether a request with `method` gets the text in its query.
        func encodesIntoQuery(for method: HTTPRequest.Method) -> Bool {
            switch self {
            case .methodDependent: return method == .get || method == .head || method == .delete
            case .query: return true
            case .form: return false
            }
        }
    }

    /// The `Content-Type` set for body encoding.
    static let contentType = "application/x-www-form-urlencoded; charset=utf-8"

    /// The options: arrays, bools, dates, keys, nils, spaces.
    public let encoder: URLEncodedFormEncoder
    /// Where the text goes.
    public let destination: Destination

    /// Creates the encoder.
    public init(encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(), destination: Destination = .methodDependent) {
        self.encoder = encoder
        self.destination = destination
    }

    /// Encodes an `Encodable` value, which must be keyed at the top level.
    public func encode<Value: Encodable & Sendable>(_ parameters: Value, into request: inout OutgoingRequest)
        throws
    {
        try write(try withURL(request.url) { try encoder.encode(parameters) }, into: &request)
    }

    /// Encodes untyped parameters.
    public func encode(_ parameters: Parameters, into request: inout OutgoingRequest) throws {
        try write(try withURL(request.url) { try encoder.encode(parameters) }, into: &request)
    }

    private func write(_ text: String, into request: inout OutgoingRequest) throws {
        if destination.encodesIntoQuery(for: request.method) {
            request.url = try URLEncodedFormParameterEncoder.appendingQuery(text, to: request.url)
        } else {
            request.body = .data(Data(text.utf8))
            request.setContentTypeIfMissing(URLEncodedFormParameterEncoder.contentType)
        }
    }

    /// Runs `body`, filling in the URL of a ``CurlewError`` it throws.
    private func withURL<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CurlewError {
            throw error.adding(url: url)
        }
    }

    /// `url` with `query` (already percent-encoded) appended to its query.
    static func appendingQuery(_ query: String, to url: URL) throws(CurlewError) -> URL {
        guard !query.isEmpty else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw CurlewError(.invalidURL, "the URL cannot be split into components to add a query", url: url)
        }
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + query
        } else {
            components.percentEncodedQuery = query
        }
        guard let result = components.url else {
            throw CurlewError(.invalidURL, "adding the query '\(query)' gives an invalid URL", url: url)
        }
        return result
    }
}
