import Foundation

/// Runs a ``DataPreprocessor`` on the body, then hands the response to another serializer.
///
/// ```swift
/// let user = try await session.request(url)
///     .serialized(by: .decodable(User.self).preprocessed(by: .xssi)).value
/// ```
public struct PreprocessingSerializer<Base: ResponseSerializer>: ResponseSerializer {
    /// The serializer that gets the preprocessed body.
    let base: Base
    /// The preprocessor.
    let preprocessor: any DataPreprocessor

    /// Creates the serializer; users say ``ResponseSerializer/preprocessed(by:)``.
    init(_ base: Base, preprocessor: any DataPreprocessor) {
        self.base = base
        self.preprocessor = preprocessor
    }

    /// Preprocesses the body and serializes the result with `base`.
    public func serialize(_ response: Response<Data>) throws -> Base.Output {
        let body = try response.preprocessedBody(preprocessor)
        return try base.serialize(response.map { _ in body })
    }
}

extension ResponseSerializer {
    /// This serializer, run on the body after `preprocessor`.
    public func preprocessed(by preprocessor: any DataPreprocessor) -> PreprocessingSerializer<Self> {
        PreprocessingSerializer(self, preprocessor: preprocessor)
    }
}
