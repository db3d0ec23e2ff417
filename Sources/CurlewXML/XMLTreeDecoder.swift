import Foundation

/// Decodes `Decodable` values from XML elements, for simple element and attribute mappings.
///
/// ```swift
/// // <book id="42" lang="en"><title>Dune</title><price currency="EUR">9.50</price>
/// //   <tag>sf</tag><tag>classic</tag></book>
/// struct Book: Decodable {
///     struct Price: Decodable { let currency: String; let value: Double }
///     let id: Int            // an attribute
///     let title: String      // a child element's text
///     let price: Price       // attributes plus the element's own text under `textKey`
///     let tag: [String]      // repeated child elements
///     let isbn: String?      // absent: nil
/// }
/// let book = try XMLTreeDecoder().decode(Book.self, from: document.root)
/// ```
///
/// The rules:
/// - The element being decoded is a keyed container. A key names, in this order of
///   preference, the child elements whose qualified name as written is the key (`"title"`,
///   `"atom:link"`), then the attribute with that qualified name, then, when the key equals
///   ``textKey``, the element's own text.
/// - Scalars (`String`, numbers, `Bool`, `Date`, `URL`, `Decimal`, `Data` as Base64) come from
///   an element's text or an attribute's value. Numbers, booleans, dates and URLs ignore
///   surrounding whitespace; booleans are `true`/`false`/`1`/`0`.
/// - An array of a key is every child element with that name, in order; when there is none
///   the array is empty. Decoding an array from an element itself (for example the root as
///   `[Item]`) gives all its child elements.
/// - Optionals are nil when the key is absent, and when the element is empty (no content,
///   no attributes): `<isbn/>` decodes `String?` as nil.
/// - Mismatches throw `DecodingError` whose description names the element and its line.
public struct XMLTreeDecoder: Sendable {
    /// How `Date` values are read from text.
    public enum DateDecodingStrategy: Sendable {
        /// ISO 8601 / RFC 3339: `2024-05-01T12:00:00Z`, with or without fractional seconds or
        /// a numeric offset, or a date alone (`2024-05-01`, midnight UTC).
        case iso8601
        /// RFC 822 / RFC 1123, as RSS uses: `Tue, 10 Jun 2003 04:00:00 GMT` (the weekday and
        /// the seconds are optional; zones as names or `+hhmm`).
        case rfc822
        /// A number of seconds since 1970-01-01T00:00:00Z.
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01T00:00:00Z.
        case millisecondsSince1970
        /// Your own parser; throw to reject the text.
        case custom(@Sendable (String) throws -> Date)
    }

    /// How `Date` values are read. Default: ``DateDecodingStrategy/iso8601``.
    public var dateDecodingStrategy: DateDecodingStrategy
    /// The key that names an element's own text, for types that also read attributes, like
    /// `<price currency="EUR">9.50</price>`. Default: `"value"`. A child element or attribute
    /// of the same name takes precedence.
    public var textKey: String
    /// Whether `String` values have leading and trailing whitespace removed. Default: false,
    /// so text is exact.
    public var trimsStringWhitespace: Bool
    /// Values handed to `Decodable` implementations as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates a decoder.
    public init(
        dateDecodingStrategy: DateDecodingStrategy = .iso8601, textKey: String = "value",
        trimsStringWhitespace: Bool = false, userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.dateDecodingStrategy = dateDecodingStrategy
        self.textKey = textKey
        self.trimsStringWhitespace = trimsStringWhitespace
        self.userInfo = userInfo
    }

    /// Decodes a value from an element.
    ///
    /// - Throws: `DecodingError` naming the element, attribute or key that did not fit.
    public func decode<T: Decodable>(_ type: T.Type, from element: XMLTreeElement) throws -> T {
        let decoder = XMLElementDecoder(
            value: .element(element), codingPath: [], configuration: self, session: XMLDecodingSession())
        return try decoder.decodeValue(T.self)
    }

    /// Decodes a value from a document's root element.
    public func decode<T: Decodable>(_ type: T.Type, from document: XMLTree) throws -> T {
        try decode(T.self, from: document.root)
    }

    /// Parses XML (safely, see ``XMLParseOptions``) and decodes a value from its root element.
    ///
    /// - Throws: ``XMLParseError`` for malformed or hostile input, `DecodingError` for a
    ///   mismatch.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, options: XMLParseOptions = XMLParseOptions())
        throws -> T
    {
        try decode(T.self, from: try XMLTree(data: data, options: options))
    }
}
