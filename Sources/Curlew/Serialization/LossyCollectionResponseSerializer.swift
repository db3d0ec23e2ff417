import Foundation

/// Decodes the elements of a JSON array that it can, and reports the others: the lossy mode
/// of ``CollectionResponseSerializer``.
///
/// Only element failures are forgiven; a body that is not JSON, or has no array at the key
/// path, is still a ``CurlewError/Kind/serializationFailed`` error.
public struct LossyCollectionResponseSerializer<Element: Decodable & Sendable>: ResponseSerializer {
    /// Dot-separated object keys leading to the array; empty for a top-level array.
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

    /// Decodes the elements it can.
    public func serialize(_ response: Response<Data>) throws -> LossyCollection<Element> {
        try CollectionResponseSerializer<Element>.decode(
            response, keyPath: keyPath, lossy: true, decoder: decoder, preprocessor: preprocessor)
    }
}
