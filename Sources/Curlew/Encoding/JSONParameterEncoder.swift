import Foundation
import HTTPTypes

/// Writes parameters as JSON into the body of a request, whatever its method.
///
/// `Encodable` values go through the `JSONEncoder`; untyped ``Parameters`` go through
/// `JSONSerialization` with ``serializationOptions``. `Content-Type` is set to
/// `application/json` unless the caller set one.
public struct JSONParameterEncoder: ParameterEncoder {
    /// The `Content-Type` set.
    static let contentType = "application/json"

    /// The encoder for `Encodable` values.
    public let encoder: JSONEncoder
    /// The options for untyped parameters; by default `.sortedKeys` (deterministic output)
    /// and `.withoutEscapingSlashes`.
    public let serializationOptions: JSONSerialization.WritingOptions

    /// Creates the encoder.
    public init(
        encoder: JSONEncoder = JSONEncoder(),
        serializationOptions: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
    ) {
        self.encoder = encoder
        self.serializationOptions = serializationOptions
    }

    /// Encodes an `Encodable` value through the `JSONEncoder`.
    public func encode<Value: Encodable & Sendable>(_ parameters: Value, into request: inout OutgoingRequest)
        throws
    {
        let data: Data
        do {
            data = try encoder.encode(parameters)
        } catch {
            throw CurlewError(
                .invalidRequest, "could not encode \(Value.self) as JSON: \(error)", url: request.url,
                underlying: error)
        }
        request.body = .data(data)
        request.setContentTypeIfMissing(JSONParameterEncoder.contentType)
    }

    /// Encodes untyped parameters through `JSONSerialization`. Values must be strings,
    /// numbers (finite), bools, `NSNull`, arrays or dictionaries of those.
    public func encode(_ parameters: Parameters, into request: inout OutgoingRequest) throws {
        request.body = .data(try JSONParameterEncoder.serialize(parameters, options: serializationOptions, url: request.url))
        request.setContentTypeIfMissing(JSONParameterEncoder.contentType)
    }

    /// `JSONSerialization` output for an untyped object, checked first so that an invalid
    /// value is a clear error rather than a runtime exception.
    static func serialize(_ object: Any, options: JSONSerialization.WritingOptions, url: URL?) throws -> Data {
        guard JSONSerialization.isValidJSONObject(object) else {
            let culprit = JSONParameterEncoder.firstInvalidPath(in: object, path: "").map { " (at '\($0)')" } ?? ""
            throw CurlewError(
                .invalidRequest,
                "the parameters are not valid JSON\(culprit): values must be strings, finite numbers, "
                    + "bools, NSNull, arrays or dictionaries with string keys",
                url: url)
        }
        do {
            return try JSONSerialization.data(withJSONObject: object, options: options)
        } catch {
            throw CurlewError(
                .invalidRequest, "could not serialize the parameters as JSON: \(error)", url: url,
                underlying: error)
        }
    }

    /// The key path of the first value `JSONSerialization` rejects, for the error message.
    private static func firstInvalidPath(in object: Any, path: String) -> String? {
        if let dictionary = object as? [String: Any] {
            for key in dictionary.keys.sorted() {
                guard let value = dictionary[key] else { continue }
                if let found = firstInvalidPath(in: value, path: path.isEmpty ? key : "\(path).\(key)") {
                    return found
                }
            }
            return nil
        }
        if let array = object as? [Any] {
            for (index, value) in array.enumerated() {
                if let found = firstInvalidPath(in: value, path: "\(path)[\(index)]") { return found }
            }
            return nil
        }
        return JSONSerialization.isValidJSONObject([object]) ? nil : (path.isEmpty ? "top level" : path)
    }
}
