import Foundation

/// Encodes parameters as `application/x-www-form-urlencoded` text, for a query string or a
/// form body.
///
/// Both `Encodable` values and untyped `[String: any Sendable]` dictionaries are accepted.
/// The output is deterministic: keys are sorted at every level, arrays keep their order.
///
/// ```swift
/// let encoder = URLEncodedFormEncoder()
/// try encoder.encode(["q": "swift & curl", "tags": ["a", "b"], "page": ["size": 20]])
/// // "page%5Bsize%5D=20&q=swift%20%26%20curl&tags%5B%5D=a&tags%5B%5D=b"
/// // which servers read as page[size]=20&q=swift & curl&tags[]=a&tags[]=b
/// ```
///
/// Escaping follows RFC 3986 for query components: only `A-Z a-z 0-9 - . _ ~ / ?` are left
/// as they are (``defaultAllowedCharacters``; see ``allowedCharacters``). Everything else,
/// notably `& = + # [ ]` and non-ASCII text (as UTF-8), is percent-escaped, in keys and in
/// values. The brackets that mark arrays and nested dictionaries are escaped too
/// (`k%5B%5D=`), which every common server framework decodes as `k[]=`; with
/// ``keyPathEncoding`` `.dots` nested keys are written `page.size=20` instead.
public struct URLEncodedFormEncoder: Sendable {
    /// How array elements are named.
    public enum ArrayEncoding: Sendable, Hashable {
        /// `k[]=1&k[]=2`. The default.
        case brackets
        /// `k=1&k=2`.
        case noBrackets
        /// `k[0]=1&k[1]=2`.
        case indexInBrackets
    }

    /// How `Bool` values are written.
    public enum BoolEncoding: Sendable, Hashable {
        /// `1` and `0`. The default.
        case numeric
        /// `true` and `false`.
        case literal
    }

    /// How `Date` values of `Encodable` and untyped parameters are written.
    public enum DateEncoding: Sendable {
        /// The date's own `Encodable` form: seconds since 2001-01-01 as a number.
        case deferredToDate
        /// Seconds since 1970-01-01, as a number.
        case secondsSince1970
        /// Milliseconds since 1970-01-01, as a whole number.
        case millisecondsSince1970
        /// ISO 8601 in UTC, for example `2024-05-01T12:00:00Z`. The default.
        case iso8601
        /// A custom rendering.
        case custom(@Sendable (Date) throws -> String)
    }

    /// How `Data` values are written.
    public enum DataEncoding: Sendable {
        /// Base64 text. The default.
        case base64
        /// The data's own `Encodable` form: an array of byte values.
        case deferredToData
        /// A custom rendering.
        case custom(@Sendable (Data) throws -> String)
    }

    /// How keys are transformed before they are written.
    public enum KeyEncoding: Sendable {
        /// Keys as they are. The default.
        case useDefaultKeys
        /// `userName` becomes `user_name`.
        case convertToSnakeCase
        /// `userName` becomes `user-name`.
        case convertToKebabCase
        /// A custom transformation.
        case custom(@Sendable (String) -> String)
    }

    /// How an explicit nil (`encodeNil`, `NSNull`, or a nil optional in an untyped
    /// dictionary) is written.
    ///
    /// Synthesized `Encodable` conformances skip nil optional properties altogether
    /// (`encodeIfPresent`), so this only applies to nils that are actually encoded, such as
    /// nils inside arrays.
    public enum NilEncoding: Sendable, Hashable {
        /// Leave the pair out. The default.
        case dropKey
        /// Write the key with an empty value: `k=`.
        case dropValue
        /// Write the text `null`: `k=null`.
        case null
    }

    /// How spaces are written.
    public enum SpaceEncoding: Sendable, Hashable {
        /// `%20`, valid in both queries and form bodies. The default.
        case percentEscaped
        /// `+`, the historical form-body convention.
        case plusReplaced
    }

    /// How the key of a nested dictionary's member is joined to its parent's key, as in
    /// Alamofire: ``brackets`` (`page[size]`, the default) or ``dots`` (`page.size`), or your own.
    /// The joined key is escaped like any key, so the default's brackets go as `%5B` and `%5D`.
    public struct KeyPathEncoding: Sendable {
        /// `parent[child]`. The default.
        public static let brackets = KeyPathEncoding { "[" + $0 + "]" }
        /// `parent.child`, for servers that read dotted key paths (Spring, ASP.NET).
        public static let dots = KeyPathEncoding { "." + $0 }

        private let suffix: @Sendable (String) -> String

        /// A key path encoding that appends `suffix(childKey)` to the parent's key.
        public init(_ suffix: @escaping @Sendable (_ childKey: String) -> String) {
            self.suffix = suffix
        }

        /// The text appended to the parent's key for a member named `key`.
        public func encode(_ key: String) -> String { suffix(key) }
    }

    /// The characters left unescaped by default: RFC 3986's unreserved ones
    /// (`A-Z a-z 0-9 - . _ ~`) and `/` and `?`.
    public static let defaultAllowedCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?")

    /// The characters that can never be left unescaped: they would split a pair (`&`, `=`),
    /// end the query (`#`), read back as something else (`%`, `+`), or make the URL invalid
    /// (space and control characters).
    static let structuralCharacters: [Unicode.Scalar] =
        ["%", "&", "=", "#", "+", " ", "\u{7F}"] + (0..<0x20).compactMap { Unicode.Scalar(UInt32($0)) }

    /// How array elements are named.
    public var arrayEncoding: ArrayEncoding
    /// How `Bool` values are written.
    public var boolEncoding: BoolEncoding
    /// How `Date` values are written.
    public var dateEncoding: DateEncoding
    /// How `Data` values are written.
    public var dataEncoding: DataEncoding
    /// How keys are transformed.
    public var keyEncoding: KeyEncoding
    /// How explicit nils are written.
    public var nilEncoding: NilEncoding
    /// How spaces are written.
    public var spaceEncoding: SpaceEncoding
    /// How nested dictionary keys are joined to their parent's key.
    public var keyPathEncoding: KeyPathEncoding
    /// The characters written as they are, in keys and values; every other one is
    /// percent-escaped as UTF-8 (Alamofire's `allowedCharacters`). Encoding throws
    /// ``CurlewError/Kind/invalidRequest`` when the set contains `%`, `&`, `=`, `#`, `+`, a space
    /// or a control character, which would change what the server reads.
    public var allowedCharacters: CharacterSet

    /// Creates an encoder; every option has the documented default.
    public init(
        arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .numeric,
        dateEncoding: DateEncoding = .iso8601, dataEncoding: DataEncoding = .base64,
        keyEncoding: KeyEncoding = .useDefaultKeys, nilEncoding: NilEncoding = .dropKey,
        spaceEncoding: SpaceEncoding = .percentEscaped, keyPathEncoding: KeyPathEncoding = .brackets,
        allowedCharacters: CharacterSet = URLEncodedFormEncoder.defaultAllowedCharacters
    ) {
        self.keyPathEncoding = keyPathEncoding
        self.allowedCharacters = allowedCharacters
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.dateEncoding = dateEncoding
        self.dataEncoding = dataEncoding
        self.keyEncoding = keyEncoding
        self.nilEncoding = nilEncoding
        self.spaceEncoding = spaceEncoding
    }

    /// Encodes an `Encodable` value, which must encode as a keyed container (a struct, a class
    /// or a dictionary with `String` or `Int` keys).
    ///
    /// - Throws: ``CurlewError`` of kind ``CurlewError/Kind/invalidRequest`` when the value is
    ///   not keyed at the top level, when encoding it fails (for example a non-finite
    ///   number; the original error is the `underlying` one), or when ``allowedCharacters``
    ///   holds a character that must be escaped.
    public func encode<Value: Encodable>(_ value: Value) throws -> String {
        let serializer = try makeSerializer()
        let context = URLEncodedFormEncodingContext(options: self)
        let node: URLEncodedFormNode?
        do {
            node = try context.encodeRoot(value)
        } catch let error as CurlewError {
            throw error
        } catch {
            throw CurlewError(
                .invalidRequest, "could not URL-form encode \(Value.self): \(error)", underlying: error)
        }
        return try serialize(root: node, typeName: "\(Value.self)", with: serializer)
    }

    /// Encodes an untyped dictionary.
    ///
    /// Values may be `String`, `Bool`, any integer or floating-point type, `Decimal`, `Date`,
    /// `Data`, `URL`, `NSNull` or nil, arrays and `[String: …]` dictionaries of those (nested
    /// to any depth), or any `Encodable` value.
    ///
    /// - Throws: ``CurlewError`` of kind ``CurlewError/Kind/invalidRequest`` naming the key
    ///   path of a value that cannot be encoded, or when ``allowedCharacters`` holds a
    ///   character that must be escaped.
    public func encode(_ parameters: [String: any Sendable]) throws -> String {
        let serializer = try makeSerializer()
        let context = URLEncodedFormEncodingContext(options: self)
        var members: [String: URLEncodedFormNode] = [:]
        for (key, value) in parameters {
            let name = context.convert(key: key)
            members[name] = try context.node(fromUntyped: value, path: name)
        }
        return serializer.serialize(members)
    }

    /// The serializer for these options, once ``allowedCharacters`` is known to be safe.
    func makeSerializer() throws(CurlewError) -> URLEncodedFormSerializer {
        var customAllowed: CharacterSet?
        if allowedCharacters != Self.defaultAllowedCharacters {
            if let unsafe = Self.structuralCharacters.first(where: allowedCharacters.contains) {
                throw CurlewError(
                    .invalidRequest,
                    "URLEncodedFormEncoder.allowedCharacters contains \(String(unsafe).debugDescription), "
                        + "which must always be percent-escaped in a form or query")
            }
            customAllowed = allowedCharacters
        }
        return URLEncodedFormSerializer(
            arrayEncoding: arrayEncoding, nilEncoding: nilEncoding, spaceEncoding: spaceEncoding,
            keyPathEncoding: keyPathEncoding, customAllowed: customAllowed)
    }

    private func serialize(
        root: URLEncodedFormNode?, typeName: String, with serializer: URLEncodedFormSerializer
    ) throws -> String {
        switch root {
        case nil:
            return ""
        case .object(let members):
            return serializer.serialize(members)
        case .string, .null, .array:
            throw CurlewError(
                .invalidRequest,
                "URL form encoding needs a keyed value at the top level (a struct or a dictionary), "
                    + "but \(typeName) encodes as a single value or an array")
        }
    }
}
