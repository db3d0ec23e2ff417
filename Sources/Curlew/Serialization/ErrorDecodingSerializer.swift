import Foundation

/// Serializes 2xx responses with another serializer and turns every other response into a
/// ``CurlewError`` of kind ``CurlewError/Kind/unacceptableStatus`` carrying the body decoded
/// as `Payload` (see ``APIErrorDecoder`` and ``CurlewError/apiError(as:)``).
///
/// ```swift
/// .serialized(by: .decodable(User.self).decodingErrors(as: ServiceError.self))
/// .serialized(by: .json.decodingErrors(as: ServiceError.self))
/// ```
public struct ErrorDecodingSerializer<Base: ResponseSerializer, Payload: Decodable & Error>: ResponseSerializer {
    /// The serializer for acceptable responses.
    let base: Base
    /// The decoder for error bodies.
    let errorDecoder: APIErrorDecoder<Payload>
    /// The statuses handed to `base`.
    let acceptableStatusCodes: Range<Int>

    /// Creates the serializer.
    public init(_ base: Base, errorDecoder: APIErrorDecoder<Payload>, acceptableStatusCodes: Range<Int> = 200..<300) {
        self.base = base
        self.errorDecoder = errorDecoder
        self.acceptableStatusCodes = acceptableStatusCodes
    }

    /// Serializes an acceptable response, or throws the decoded error.
    public func serialize(_ response: Response<Data>) throws -> Base.Output {
        try errorDecoder.validate(response, acceptableStatusCodes: acceptableStatusCodes)
        return try base.serialize(response)
    }
}

extension ResponseSerializer {
    /// This serializer for 2xx responses; any other response throws a ``CurlewError`` whose
    /// ``CurlewError/apiError(as:)`` is the body decoded as `errorType`.
    public func decodingErrors<Payload>(
        as errorType: Payload.Type, decoder: JSONDecoder = JSONDecoder()
    ) -> ErrorDecodingSerializer<Self, Payload> {
        ErrorDecodingSerializer(self, errorDecoder: APIErrorDecoder(errorType, decoder: decoder))
    }
}
