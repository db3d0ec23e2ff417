import Curlew
import Foundation

/// Adapts an ``XMLSerializer`` to Curlew's `ResponseSerializer`: parses the body into an
/// ``XMLTree`` and hands it to the XML serializer.
///
/// Use the factories rather than this type's name:
///
/// ```swift
/// let document = try await session.request(url).serialized(by: .xmlDocument).value
/// let feed = try await session.request(url).serialized(by: .xml(RSSFeedSerializer())).value
/// let catalog = try await session.request(url).serialized(by: .xmlDecodable(Catalog.self)).value
/// ```
///
/// **Empty bodies.** There is no empty XML document, so an empty body fails with
/// `CurlewError` kind `.emptyResponse`, also for 204, 205 and HEAD responses, unless the
/// serializer's `Output` conforms to `EmptyResponse` (such as `Empty`): then, for 204, 205
/// and HEAD only, its `emptyValue()` is returned without parsing, as
/// `DecodableResponseSerializer` does.
///
/// **Errors.** A body that is not well-formed (or is hostile: XXE, entity expansion) fails
/// with kind `.serializationFailed`, whose `underlying` is the ``XMLParseError`` with line
/// and column; an error thrown by the XML serializer fails with `.serializationFailed` too,
/// with that error as `underlying`. Every error carries the URL, head and body.
///
/// **Encoding.** The `charset` parameter of `Content-Type`, when present, overrides the
/// document's encoding declaration (RFC 7303), unless ``XMLParseOptions/encoding`` is set.
public struct XMLResponseSerializer<S: XMLSerializer>: ResponseSerializer {
    /// The XML serializer the document is handed to.
    public let serializer: S
    /// How the body is parsed.
    public let options: XMLParseOptions

    /// Creates the adapter.
    public init(_ serializer: S, options: XMLParseOptions = XMLParseOptions()) {
        self.serializer = serializer
        self.options = options
    }

    public func serialize(_ response: Response<Data>) throws -> S.Output {
        if response.value.isEmpty {
            if response.allowsEmptyBody, let empty = S.Output.self as? any EmptyResponse.Type,
                let value = empty.emptyValue() as? S.Output
            {
                return value
            }
            throw response.error(.emptyResponse, "the body is empty; expected an XML document")
        }
        var options = options
        if options.encoding == nil { options.encoding = response.charset }
        let document: XMLTree
        do {
            document = try XMLTree(data: response.value, options: options)
        } catch {
            throw response.error(.serializationFailed, "the body is not acceptable XML: \(error)", underlying: error)
        }
        do {
            return try serializer.serialize(document, head: response.head)
        } catch let error as CurlewError {
            throw error
        } catch {
            throw response.error(
                .serializationFailed, "\(S.self) could not serialize the XML document: \(error)",
                underlying: error)
        }
    }
}

extension ResponseSerializer {
    /// The body parsed as XML and handed to your ``XMLSerializer``.
    public static func xml<S: XMLSerializer>(_ serializer: S, options: XMLParseOptions = XMLParseOptions())
        -> XMLResponseSerializer<S> where Self == XMLResponseSerializer<S>
    {
        XMLResponseSerializer(serializer, options: options)
    }

    /// The body as a Decodable type, decoded from the root element of the XML document.
    public static func xmlDecodable<T: Decodable & Sendable>(
        _ type: T.Type, decoder: XMLTreeDecoder = XMLTreeDecoder(), options: XMLParseOptions = XMLParseOptions()
    ) -> XMLResponseSerializer<XMLDecodableSerializer<T>> where Self == XMLResponseSerializer<XMLDecodableSerializer<T>> {
        XMLResponseSerializer(XMLDecodableSerializer(decoder: decoder), options: options)
    }
}

extension ResponseSerializer where Self == XMLResponseSerializer<XMLTreeSerializer> {
    /// The body parsed as an ``XMLTree``.
    public static var xmlDocument: XMLResponseSerializer<XMLTreeSerializer> {
        XMLResponseSerializer(XMLTreeSerializer())
    }

    /// The body parsed as an ``XMLTree`` with the given options.
    public static func xmlDocument(options: XMLParseOptions) -> XMLResponseSerializer<XMLTreeSerializer> {
        XMLResponseSerializer(XMLTreeSerializer(), options: options)
    }
}
