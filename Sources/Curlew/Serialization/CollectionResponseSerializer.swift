import Foundation

/// Decodes `[Element]` from a JSON array: the whole body, or the array at a key path such as
/// `"data.items"`.
///
/// Any element that fails to decode fails the whole response with
/// ``CurlewError/Kind/serializationFailed``, naming its index. To skip such elements and
/// learn which failed, use ``LossyCollectionResponseSerializer``.
///
/// An empty body gives `[]` for 204, 205 and HEAD responses and an
/// ``CurlewError/Kind/emptyResponse`` error otherwise.
public struct CollectionResponseSerializer<Element: Decodable & Sendable>: ResponseSerializer {
    /// Dot-separated object keys leading to the array; empty for a top-level array. Keys are
    /// matched after the decoder's `keyDecodingStrategy`.
    public let keyPath: String
    /// The decoder used.
    public let decoder: JSONDecoder
    /// Runs on the body first.
    public let preprocessor: any DataPreprocessor

    /// Creates the serializer.
    public init(
        keyPath: String = "", decoder: JSONDecoder = JSONDecoder(),
        preprocessor: any DataPreprocessor = PassthroughPreprocessor()
    ) {
        self.keyPath = keyPath
        self.decoder = decoder
        self.preprocessor = preprocessor
    }

    /// Decodes the elements.
    public func serialize(_ response: Response<Data>) throws -> [Element] {
        try CollectionResponseSerializer.decode(
            response, keyPath: keyPath, lossy: false, decoder: decoder, preprocessor: preprocessor
        ).elements
    }

    /// The shared implementation of the strict and lossy serializers.
    static func decode(
        _ response: Response<Data>, keyPath: String, lossy: Bool, decoder: JSONDecoder,
        preprocessor: any DataPreprocessor
    ) throws -> LossyCollection<Element> {
        let body = try response.preprocessedBody(preprocessor)
        let place = keyPath.isEmpty ? "the top level" : "key path '\(keyPath)'"
        if body.isEmpty {
            if response.allowsEmptyBody { return LossyCollection(elements: [], failures: []) }
            throw response.error(.emptyResponse, "the body is empty; expected a JSON array of \(Element.self)")
        }
        let components = keyPath.isEmpty ? [] : keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        do {
            let result = try KeyPathCollectionDecoding<Element>.decode(
                body, keyPath: components, lossy: lossy, decoder: decoder)
            return LossyCollection(elements: result.elements, failures: result.failures)
        } catch CollectionDecodingFailure.keyPath(let error) {
            throw response.error(
                .serializationFailed, "no JSON array at \(place): \(error)", underlying: error)
        } catch CollectionDecodingFailure.element(let index, let error) {
            throw response.error(
                .serializationFailed, "element \(index) of the array at \(place) is not a valid \(Element.self): \(error)",
                underlying: error)
        } catch {
            throw response.error(.serializationFailed, "the body is not valid JSON: \(error)", underlying: error)
        }
    }
}

extension ResponseSerializer {
    /// `[T]` from a JSON array at the top level or at `keyPath` (`"data.items"`); any bad
    /// element fails the response.
    public static func collection<T>(
        of type: T.Type, keyPath: String = "", decoder: JSONDecoder = JSONDecoder(),
        preprocessor: any DataPreprocessor = PassthroughPreprocessor()
    ) -> CollectionResponseSerializer<T> where Self == CollectionResponseSerializer<T> {
        CollectionResponseSerializer(keyPath: keyPath, decoder: decoder, preprocessor: preprocessor)
    }

    /// The `T`s that decode from a JSON array at the top level or at `keyPath`, and a record
    /// of the elements that did not.
    public static func lossyCollection<T>(
        of type: T.Type, keyPath: String = "", decoder: JSONDecoder = JSONDecoder(),
        preprocessor: any DataPreprocessor = PassthroughPreprocessor()
    ) -> LossyCollectionResponseSerializer<T> where Self == LossyCollectionResponseSerializer<T> {
        LossyCollectionResponseSerializer(keyPath: keyPath, decoder: decoder, preprocessor: preprocessor)
    }
}
