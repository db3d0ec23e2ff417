import Foundation
import HTTPTypes

/// Writes parameters as a property list into the body of a request.
///
/// `Encodable` values go through a `PropertyListEncoder`; untyped ``Parameters`` through
/// `PropertyListSerialization`. `Content-Type` is set to `application/x-plist` unless the
/// caller set one.
public struct PropertyListParameterEncoder: ParameterEncoder {
    /// The `Content-Type` set.
    static let contentType = "application/x-plist"

    /// `.xml` (the default) or `.binary`. (`.openStep` cannot be written.)
    public let format: PropertyListSerialization.PropertyListFormat

    /// Creates the encoder.
    public init(format: PropertyListSerialization.PropertyListFormat = .xml) {
        self.format = format
    }

    /// Encodes an `Encodable` value through a `PropertyListEncoder`.
    public func encode<Value: Encodable & Sendable>(_ parameters: Value, into request: inout OutgoingRequest)
        throws
    {
        try checkFormat(url: request.url)
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        let data: Data
        do {
            data = try encoder.encode(parameters)
        } catch {
            throw CurlewError(
                .invalidRequest, "could not encode \(Value.self) as a property list: \(error)",
                url: request.url, underlying: error)
        }
        request.body = .data(data)
        request.setContentTypeIfMissing(PropertyListParameterEncoder.contentType)
    }

    /// Encodes untyped parameters through `PropertyListSerialization`. Values must be
    /// strings, numbers, bools, dates, data, arrays or dictionaries of those (no nil or NSNull).
    public func encode(_ parameters: Parameters, into request: inout OutgoingRequest) throws {
        try checkFormat(url: request.url)
        let object: Any = parameters
        guard PropertyListSerialization.propertyList(object, isValidFor: format) else {
            throw CurlewError(
                .invalidRequest,
                "the parameters are not a valid property list: values must be strings, numbers, bools, "
                    + "dates, data, arrays or dictionaries with string keys",
                url: request.url)
        }
        do {
            request.body = .data(try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0))
        } catch {
            throw CurlewError(
                .invalidRequest, "could not serialize the parameters as a property list: \(error)",
                url: request.url, underlying: error)
        }
        request.setContentTypeIfMissing(PropertyListParameterEncoder.contentType)
    }

    private func checkFormat(url: URL) throws {
        guard format == .xml || format == .binary else {
            throw CurlewError(.invalidRequest, "property lists can only be written as XML or binary", url: url)
        }
    }
}
