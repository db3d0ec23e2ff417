import Foundation

/// Parses the body into an untyped ``JSON`` value.
///
/// An empty body gives ``JSON/null`` for 204, 205 and HEAD responses and an
/// ``CurlewError/Kind/emptyResponse`` error otherwise. Invalid JSON is a
/// ``CurlewError/Kind/serializationFailed`` error whose `underlying` is the parser's error
/// (which names the position).
public struct JSONResponseSerializer: ResponseSerializer {
    /// Runs on the body first.
    public let preprocessor: any DataPreprocessor

    /// Creates the serializer.
    public init(preprocessor: any DataPreprocessor = PassthroughPreprocessor()) {
        self.preprocessor = preprocessor
    }

    /// Parses the body.
    public func serialize(_ response: Response<Data>) throws -> JSON {
        let body = try response.preprocessedBody(preprocessor)
        if body.isEmpty {
            if response.allowsEmptyBody { return .null }
            throw response.error(.emptyResponse, "the body is empty; expected JSON")
        }
        do {
            return try JSON(parsing: body)
        } catch {
            throw response.error(.serializationFailed, "the body is not valid JSON: \(error)", underlying: error)
        }
    }
}

extension ResponseSerializer where Self == JSONResponseSerializer {
    /// The body as an untyped ``JSON`` value.
    public static var json: JSONResponseSerializer { JSONResponseSerializer() }

    /// The body as an untyped ``JSON`` value, after `preprocessor`.
    public static func json(preprocessor: any DataPreprocessor) -> JSONResponseSerializer {
        JSONResponseSerializer(preprocessor: preprocessor)
    }
}

extension JSON: EmptyResponse {
    /// ``JSON/null`` stands for "no content", so `.decodable(JSON.self)` accepts 204s.
    public static func emptyValue() -> JSON { .null }
}
