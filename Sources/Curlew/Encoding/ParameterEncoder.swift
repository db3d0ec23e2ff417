import Foundation
import HTTPTypes

/// Untyped request parameters: a dictionary of strings, numbers, bools, arrays and nested
/// dictionaries (and, depending on the encoder, dates, data and `Encodable` values).
public typealias Parameters = [String: any Sendable]

/// Writes parameters into a request: into its URL query, its body, or both.
///
/// The built-in encoders are reached through static factories:
///
/// ```swift
/// session.request(url, method: .post, parameters: newUser, encoder: .json)
/// session.request(url, parameters: ["q": "curl"], encoder: .urlEncodedForm)
/// session.request(url, method: .post, parameters: query, encoder: .urlEncodedForm(destination: .query))
/// try JSONParameterEncoder().encode(newUser, into: &request)  // on an OutgoingRequest
/// ```
///
/// Write your own by conforming a type. By convention an encoder sets `Content-Type` only
/// when the request has none yet, so the caller's header always wins.
public protocol ParameterEncoder: Sendable {
    /// Encodes an `Encodable` value into `request`.
    ///
    /// - Throws: a ``CurlewError`` (kind ``CurlewError/Kind/invalidRequest``) when the value
    ///   cannot be encoded.
    func encode<Value: Encodable & Sendable>(_ parameters: Value, into request: inout OutgoingRequest) throws

    /// Encodes untyped parameters into `request`.
    ///
    /// The default implementation throws ``CurlewError/Kind/invalidRequest``: an encoder that
    /// only knows `Encodable` values need not implement it.
    func encode(_ parameters: Parameters, into request: inout OutgoingRequest) throws
}

extension ParameterEncoder {
    /// Throws ``CurlewError/Kind/invalidRequest``: this encoder takes `Encodable` values only.
    public func encode(_ parameters: Parameters, into request: inout OutgoingRequest) throws {
        throw CurlewError(
            .invalidRequest, "\(Self.self) does not support untyped parameters; pass an Encodable value",
            url: request.url)
    }
}

extension ParameterEncoder where Self == URLEncodedFormParameterEncoder {
    /// URL form encoding with the default options, into the query for GET, HEAD and DELETE
    /// and into the body otherwise.
    public static var urlEncodedForm: URLEncodedFormParameterEncoder { URLEncodedFormParameterEncoder() }

    /// URL form encoding with the given encoder options and destination.
    public static func urlEncodedForm(
        encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(),
        destination: URLEncodedFormParameterEncoder.Destination = .methodDependent
    ) -> URLEncodedFormParameterEncoder {
        URLEncodedFormParameterEncoder(encoder: encoder, destination: destination)
    }
}

extension ParameterEncoder where Self == JSONParameterEncoder {
    /// JSON in the body, through a default `JSONEncoder`.
    public static var json: JSONParameterEncoder { JSONParameterEncoder() }

    /// JSON in the body, through the given `JSONEncoder`.
    public static func json(encoder: JSONEncoder) -> JSONParameterEncoder {
        JSONParameterEncoder(encoder: encoder)
    }
}

extension ParameterEncoder where Self == PropertyListParameterEncoder {
    /// An XML property list in the body.
    public static var propertyList: PropertyListParameterEncoder { PropertyListParameterEncoder() }

    /// A property list of the given format (`.xml` or `.binary`) in the body.
    public static func propertyList(format: PropertyListSerialization.PropertyListFormat)
        -> PropertyListParameterEncoder
    {
        PropertyListParameterEncoder(format: format)
    }
}

extension OutgoingRequest {
    /// Sets `Content-Type` unless the caller already set one.
    mutating func setContentTypeIfMissing(_ value: String) {
        if headerFields[.contentType] == nil {
            headerFields[.contentType] = value
        }
    }
}
