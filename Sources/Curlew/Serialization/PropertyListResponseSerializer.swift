import Foundation

/// Parses a property-list body (XML, binary or OpenStep) into a `Decodable` type.
///
/// An empty body is an ``CurlewError/Kind/emptyResponse`` error, except for 204, 205 and HEAD
/// responses when `T` conforms to ``EmptyResponse``. A body that does not parse or does not
/// match `T` is a ``CurlewError/Kind/serializationFailed`` error with the `DecodingError`
/// underneath.
public struct PropertyListResponseSerializer<T: Decodable & Sendable>: ResponseSerializer {
    /// The decoder used.
    public let decoder: PropertyListDecoder
    /// Runs on the body first.
    public let preprocessor: any DataPreprocessor

    /// Creates the serializer.
    public init(
        decoder: PropertyListDecoder = PropertyListDecoder(),
        preprocessor: any DataPreprocessor = PassthroughPreprocessor()
    ) {
        self.decoder = decoder
        self.preprocessor = preprocessor
    }

    /// Decodes the body.
    public func serialize(_ response: Response<Data>) throws -> T {
        let body = try response.preprocessedBody(preprocessor)
        if body.isEmpty {
            if response.allowsEmptyBody, let empty = T.self as? any EmptyResponse.Type,
                let value = empty.emptyValue() as? T
            {
                return value
            }
            throw response.error(.emptyResponse, "the body is empty; expected a property list for \(T.self)")
        }
        do {
            return try decoder.decode(T.self, from: body)
        } catch {
            throw response.error(
                .serializationFailed, "could not decode \(T.self) from the property list: \(error)",
                underlying: error)
        }
    }
}

extension PropertyListValue: EmptyResponse {
    /// An empty dictionary stands for "no content".
    public static func emptyValue() -> PropertyListValue { .dictionary([:]) }
}

extension ResponseSerializer where Self == PropertyListResponseSerializer<PropertyListValue> {
    /// The body as an untyped ``PropertyListValue``; an empty 204, 205 or HEAD body gives an
    /// empty dictionary.
    public static var propertyList: PropertyListResponseSerializer<PropertyListValue> {
        PropertyListResponseSerializer()
    }
}

extension ResponseSerializer {
    /// The body decoded from a property list.
    public static func decodablePropertyList<T>(
        _ type: T.Type, decoder: PropertyListDecoder = PropertyListDecoder(),
        preprocessor: any DataPreprocessor = PassthroughPreprocessor()
    ) -> PropertyListResponseSerializer<T> where Self == PropertyListResponseSerializer<T> {
        PropertyListResponseSerializer(decoder: decoder, preprocessor: preprocessor)
    }
}
