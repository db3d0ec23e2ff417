import Foundation
import HTTPTypes

/// Turns a collected response body into a value.
///
/// Conform your own types, or use the built-ins through their static factories:
/// `.data`, `.string`, `.decodable(User.self)`.
///
/// ```swift
/// struct LineCount: ResponseSerializer {
///     func serialize(_ response: Response<Data>) throws -> Int {
///         response.value.split(separator: UInt8(ascii: "\n")).count
///     }
/// }
/// let lines = try await session.request(url).serialized(by: LineCount()).value
/// ```
public protocol ResponseSerializer<Output>: Sendable {
    /// The type produced.
    associatedtype Output: Sendable
    /// Produces the value from the response, whose `value` is the raw body.
    func serialize(_ response: Response<Data>) throws -> Output
}

extension Response where Value == Data {
    /// Whether an empty body is expected here: status 204 or 205, or a HEAD request. The
    /// serializers that need content accept an empty body only then; `.data` and `.string`
    /// accept one always.
    public var allowsEmptyBody: Bool {
        statusCode == 204 || statusCode == 205 || request.method == .head
    }

    /// The charset named by the `Content-Type` header, lowercased, if any.
    public var charset: String? {
        guard let contentType = responseHead.contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2,
                pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset"
            else { continue }
            return pair[1].trimmingCharacters(in: .whitespaces)
                .trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
        }
        return nil
    }

    /// A ``CurlewError`` about this response, carrying its URL, head and body.
    public func error(_ kind: CurlewError.Kind, _ message: String, underlying: (any Error & Sendable)? = nil)
        -> CurlewError
    {
        CurlewError(kind, message, url: url, responseHead: head, responseBody: value, underlying: underlying)
    }
}

/// Returns the body as it is; an empty body is empty `Data`, whatever the status (unlike
/// Alamofire, which throws unless the status is 204 or 205 or the method HEAD).
public struct DataResponseSerializer: ResponseSerializer {
    /// Creates the serializer.
    public init() {}
    public func serialize(_ response: Response<Data>) throws -> Data { response.value }
}

/// Decodes the body as text, in the charset from `Content-Type`, falling back to UTF-8 and
/// then ISO-8859-1. An empty body is `""`, whatever the status.
public struct StringResponseSerializer: ResponseSerializer {
    /// Forces an encoding instead of the one from `Content-Type`.
    public let encoding: String.Encoding?

    /// Creates the serializer.
    public init(encoding: String.Encoding? = nil) { self.encoding = encoding }

    public func serialize(_ response: Response<Data>) throws -> String {
        let data = response.value
        if let encoding {
            guard let text = String(data: data, encoding: encoding) else {
                throw response.error(.serializationFailed, "the body is not valid text in \(encoding)")
            }
            return text
        }
        if let charset = response.charset {
            guard let encoding = String.Encoding(ianaCharsetName: charset) else {
                throw response.error(.serializationFailed, "unsupported charset '\(charset)'")
            }
            guard let text = String(data: data, encoding: encoding) else {
                throw response.error(.serializationFailed, "the body is not valid \(charset) text")
            }
            return text
        }
        if let text = String(validatingUTF8Data: data) { return text }
        // ISO-8859-1 maps every byte to a character, so this never fails.
        return String(data: data, encoding: .isoLatin1) ?? String(decoding: data, as: UTF8.self)
    }
}

/// Decodes the body as JSON into `T`.
///
/// An empty body is an error, except for 204, 205 and HEAD when `T` conforms to
/// ``EmptyResponse``.
public struct DecodableResponseSerializer<T: Decodable & Sendable>: ResponseSerializer {
    /// The decoder used.
    public let decoder: JSONDecoder

    /// Creates the serializer.
    public init(decoder: JSONDecoder = JSONDecoder()) { self.decoder = decoder }

    public func serialize(_ response: Response<Data>) throws -> T {
        if response.value.isEmpty {
            if response.allowsEmptyBody, let empty = T.self as? any EmptyResponse.Type,
                let value = empty.emptyValue() as? T
            {
                return value
            }
            throw response.error(.emptyResponse, "the body is empty; expected JSON for \(T.self)")
        }
        do {
            return try decoder.decode(T.self, from: response.value)
        } catch {
            throw response.error(
                .serializationFailed, "could not decode \(T.self) from JSON: \(error)", underlying: error)
        }
    }
}

/// A type that stands for "no content" in a 204, 205 or HEAD response.
public protocol EmptyResponse {
    /// The value to use for an empty body.
    static func emptyValue() -> Self
}

/// A Decodable value for responses without a body.
public struct Empty: Codable, Sendable, Hashable, EmptyResponse {
    /// The one value.
    public static let value = Empty()
    public static func emptyValue() -> Empty { value }
}

extension ResponseSerializer where Self == DataResponseSerializer {
    /// The body as `Data`.
    public static var data: DataResponseSerializer { DataResponseSerializer() }
}

extension ResponseSerializer where Self == StringResponseSerializer {
    /// The body as text, in the charset from `Content-Type`.
    public static var string: StringResponseSerializer { StringResponseSerializer() }
    /// The body as text in a given encoding.
    public static func string(encoding: String.Encoding) -> StringResponseSerializer {
        StringResponseSerializer(encoding: encoding)
    }
}

extension ResponseSerializer {
    /// The body decoded from JSON.
    public static func decodable<T>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder())
        -> DecodableResponseSerializer<T> where Self == DecodableResponseSerializer<T>
    {
        DecodableResponseSerializer(decoder: decoder)
    }
}

extension String {
    init?(validatingUTF8Data data: Data) {
        guard let text = String(bytes: data, encoding: .utf8) else { return nil }
        self = text
    }
}

extension String.Encoding {
    /// The encoding for an IANA charset name, for the common ones.
    init?(ianaCharsetName name: String) {
        switch name.lowercased() {
        case "utf-8", "utf8": self = .utf8
        case "us-ascii", "ascii": self = .ascii
        case "iso-8859-1", "latin1", "iso_8859-1", "l1": self = .isoLatin1
        case "iso-8859-2", "latin2": self = .isoLatin2
        case "utf-16": self = .utf16
        case "utf-16le": self = .utf16LittleEndian
        case "utf-16be": self = .utf16BigEndian
        case "utf-32": self = .utf32
        case "windows-1252", "cp1252": self = .windowsCP1252
        case "windows-1251", "cp1251": self = .windowsCP1251
        case "windows-1250", "cp1250": self = .windowsCP1250
        case "shift_jis", "shift-jis", "sjis": self = .shiftJIS
        case "euc-jp": self = .japaneseEUC
        case "iso-2022-jp": self = .iso2022JP
        default: return nil
        }
    }
}
