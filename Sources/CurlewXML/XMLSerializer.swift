import HTTPTypes

/// Turns a parsed XML document into your own type: the XML counterpart of
/// `ResponseSerializer`.
///
/// CurlewXML parses the body safely (see ``XMLParseOptions``) and hands you the document and
/// the response head. Plug a serializer into a request with `.xml(_:)`:
///
/// ```swift
/// struct RSSFeedSerializer: XMLSerializer {
///     func serialize(_ document: XMLTree, head: HTTPResponse) throws -> Feed {
///         let channel = document.root.firstElement(named: "channel")
///         return Feed(title: channel?.firstElement(named: "title")?.text ?? "",
///                     items: channel?.elements(named: "item").map { $0.firstElement(named: "title")?.text ?? "" } ?? [])
///     }
/// }
/// let feed = try await session.request(rssURL).serialized(by: .xml(RSSFeedSerializer())).value
/// ```
///
/// Errors you throw reach the caller as `CurlewError` of kind `.serializationFailed`, with
/// your error as `underlying`. A `CurlewError` you throw passes through unchanged.
public protocol XMLSerializer<Output>: Sendable {
    /// The type produced.
    associatedtype Output: Sendable
    /// Produces the value from the parsed document and the response head.
    func serialize(_ document: XMLTree, head: HTTPResponse) throws -> Output
}

/// Returns the parsed document itself; used by `.xmlDocument`.
public struct XMLTreeSerializer: XMLSerializer {
    /// Creates the serializer.
    public init() {}

    public func serialize(_ document: XMLTree, head: HTTPResponse) throws -> XMLTree { document }
}

/// Decodes a `Decodable` type from the document's root element with an ``XMLTreeDecoder``;
/// used by `.xmlDecodable(_:)`.
public struct XMLDecodableSerializer<T: Decodable & Sendable>: XMLSerializer {
    /// The decoder used.
    public let decoder: XMLTreeDecoder

    /// Creates the serializer.
    public init(decoder: XMLTreeDecoder = XMLTreeDecoder()) { self.decoder = decoder }

    public func serialize(_ document: XMLTree, head: HTTPResponse) throws -> T {
        try decoder.decode(T.self, from: document.root)
    }
}
