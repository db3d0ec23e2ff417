import CLibXML2
import Foundation

/// What a coding key found in an element: the thing an ``XMLElementDecoder`` decodes from.
enum XMLDecodingValue {
    /// One element (the top level, or an item of an array).
    case element(XMLTreeElement)
    /// All child elements of `parent` named `name` (possibly none).
    case elements([XMLTreeElement], name: String, parent: XMLTreeElement)
    /// An attribute's value.
    case attribute(String, name: String, owner: XMLTreeElement)
    /// An element's own text, read through ``XMLTreeDecoder/textKey``.
    case text(String, owner: XMLTreeElement)

    /// Whether an optional decodes as nil from this value.
    var isNil: Bool {
        switch self {
        case .element(let element): return element.isEmptyForDecoding
        case .elements(let list, _, _): return list.isEmpty || (list.count == 1 && list[0].isEmptyForDecoding)
        case .attribute: return false
        case .text(let text, _): return text.isEmpty
        }
    }

    /// Where the value is, for error messages.
    var location: String {
        switch self {
        case .element(let element):
            return "<\(element.name)> at line \(element.line)"
        case .elements(let list, let name, let parent):
            if let first = list.first { return "<\(name)> at line \(first.line)" }
            return "<\(name)> in <\(parent.name)> at line \(parent.line)"
        case .attribute(_, let name, let owner):
            return "attribute '\(name)' of <\(owner.name)> at line \(owner.line)"
        case .text(_, let owner):
            return "the text of <\(owner.name)> at line \(owner.line)"
        }
    }
}

/// State shared by one top-level decode: parsers that are costly to build.
final class XMLDecodingSession {
    private var rfc822Formatters: [DateFormatter]?

    /// DateFormatters for the RFC 822 variants, built on first use.
    var rfc822: [DateFormatter] {
        if let rfc822Formatters { return rfc822Formatters }
        let formats = [
            "EEE, d MMM yyyy HH:mm:ss zzz", "EEE, d MMM yyyy HH:mm:ss Z", "EEE, d MMM yyyy HH:mm zzz",
            "EEE, d MMM yyyy HH:mm Z", "d MMM yyyy HH:mm:ss zzz", "d MMM yyyy HH:mm:ss Z",
            "d MMM yyyy HH:mm zzz", "d MMM yyyy HH:mm Z",
        ]
        let formatters = formats.map { format in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(secondsFromGMT: 0)
            formatter.dateFormat = format
            return formatter
        }
        rfc822Formatters = formatters
        return formatters
    }
}

/// The `Decoder` behind ``XMLTreeDecoder``; it is also its own single-value container.
final class XMLElementDecoder: Decoder, SingleValueDecodingContainer {
    let value: XMLDecodingValue
    let codingPath: [any CodingKey]
    let configuration: XMLTreeDecoder
    let session: XMLDecodingSession

    init(value: XMLDecodingValue, codingPath: [any CodingKey], configuration: XMLTreeDecoder, session: XMLDecodingSession) {
        self.value = value
        self.codingPath = codingPath
        self.configuration = configuration
        self.session = session
    }

    var userInfo: [CodingUserInfoKey: Any] { configuration.userInfo }

    /// A decoder for a value found under `key`.
    func child(_ value: XMLDecodingValue, key: any CodingKey) -> XMLElementDecoder {
        XMLElementDecoder(value: value, codingPath: codingPath + [key], configuration: configuration, session: session)
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(XMLKeyedDecodingContainer<Key>(element: try singleElement(for: type), decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .elements(let list, _, _):
            return XMLUnkeyedDecodingContainer(elements: list, decoder: self)
        case .element(let element):
            return XMLUnkeyedDecodingContainer(elements: element.childElements, decoder: self)
        case .attribute, .text:
            throw DecodingError.typeMismatch(
                [Any].self,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "expected repeated elements for an array, found \(value.location)"))
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// The one element this value stands for; for a keyed container or an element's text.
    func singleElement(for type: Any.Type) throws -> XMLTreeElement {
        switch value {
        case .element(let element):
            return element
        case .elements(let list, _, _) where list.count == 1:
            return list[0]
        case .elements(let list, let name, let parent):
            if list.isEmpty {
                throw DecodingError.valueNotFound(
                    type,
                    DecodingError.Context(
                        codingPath: codingPath, debugDescription: "no <\(name)> element in <\(parent.name)> at line \(parent.line)"))
            }
            throw DecodingError.typeMismatch(
                type,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "expected one <\(name)> element in <\(parent.name)>, found \(list.count) "
                        + "(lines \(list.map { String($0.line) }.joined(separator: ", "))); decode an array instead"))
        case .attribute, .text:
            throw DecodingError.typeMismatch(
                type,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "expected an element with attributes or children, found \(value.location)"))
        }
    }

    /// The text a scalar is read from.
    func scalarText(for type: Any.Type) throws -> String {
        switch value {
        case .attribute(let text, _, _), .text(let text, _): return text
        default: return try singleElement(for: type).text
        }
    }

    // MARK: Values

    /// Decodes `T` from this decoder's value, handling the Foundation types whose own
    /// `Decodable` conformance does not fit XML text.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self, let text = try decodeString() as? T { return text }
        if T.self == Date.self, let date = try decodeDate() as? T { return date }
        if T.self == URL.self {
            let text = try trimmedText(for: URL.self)
            guard let url = URL(string: text), let typed = url as? T else { throw corrupted("a URL", text) }
            return typed
        }
        if T.self == Decimal.self {
            let text = try trimmedText(for: Decimal.self)
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
                let typed = decimal as? T
            else { throw mismatch(Decimal.self, "a decimal number", text) }
            return typed
        }
        if T.self == Data.self {
            let text = try trimmedText(for: Data.self)
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), let typed = data as? T else {
                throw corrupted("Base64 data", text)
            }
            return typed
        }
        return try T(from: self)
    }

    private func decodeString() throws -> String {
        let text = try scalarText(for: String.self)
        return configuration.trimsStringWhitespace ? text.trimmingCharacters(in: .whitespacesAndNewlines) : text
    }

    private func trimmedText(for type: Any.Type) throws -> String {
        try scalarText(for: type).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func decodeDate() throws -> Date {
        let text = try trimmedText(for: Date.self)
        switch configuration.dateDecodingStrategy {
        case .iso8601:
            let styles: [Date.ISO8601FormatStyle] = [
                Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true),
                Date.ISO8601FormatStyle().year().month().day(),
            ]
            for style in styles {
                if let date = try? style.parse(text) { return date }
            }
            throw corrupted("an ISO 8601 date", text)
        case .rfc822:
            for formatter in session.rfc822 {
                if let date = formatter.date(from: text) { return date }
            }
            throw corrupted("an RFC 822 date", text)
        case .secondsSince1970:
            guard let seconds = Double(text) else { throw mismatch(Date.self, "a number of seconds", text) }
            return Date(timeIntervalSince1970: seconds)
        case .millisecondsSince1970:
            guard let milliseconds = Double(text) else { throw mismatch(Date.self, "a number of milliseconds", text) }
            return Date(timeIntervalSince1970: milliseconds / 1000)
        case .custom(let parse):
            do {
                return try parse(text)
            } catch {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: codingPath, debugDescription: "the date '\(text)' in \(value.location) was rejected: \(error)",
                        underlyingError: error))
            }
        }
    }

    private func decodeInteger<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let text = try trimmedText(for: I.self)
        if let integer = I(text) { return integer }
        let digits = text.drop(while: { $0 == "-" || $0 == "+" })
        if !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) {
            throw corrupted("a number that fits in \(I.self)", text)
        }
        throw mismatch(I.self, "an integer", text)
    }

    private func decodeFloatingPoint<F: LosslessStringConvertible>(_ type: F.Type) throws -> F {
        let text = try trimmedText(for: F.self)
        guard let number = F(text) else { throw mismatch(F.self, "a number", text) }
        return number
    }

    private func mismatch(_ type: Any.Type, _ expected: String, _ text: String) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            DecodingError.Context(codingPath: codingPath, debugDescription: "expected \(expected) in \(value.location), found '\(text)'"))
    }

    private func corrupted(_ expected: String, _ text: String) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: codingPath, debugDescription: "expected \(expected) in \(value.location), found '\(text)'"))
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { value.isNil }

    func decode(_ type: Bool.Type) throws -> Bool {
        let text = try trimmedText(for: Bool.self)
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw mismatch(Bool.self, "a boolean (true, false, 1 or 0)", text)
        }
    }

    func decode(_ type: String.Type) throws -> String { try decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decodeFloatingPoint(Double.self) }
    func decode(_ type: Float.Type) throws -> Float { try decodeFloatingPoint(Float.self) }
    func decode(_ type: Int.Type) throws -> Int { try decodeInteger(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeInteger(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeInteger(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeInteger(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(UInt64.self) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(T.self) }
}

extension XMLTreeElement {
    /// No child nodes and no attributes: `<x/>` or `<x></x>`.
    var isEmptyForDecoding: Bool {
        node.pointer.pointee.children == nil && node.pointer.pointee.properties == nil
    }

    /// The element's own text and CDATA, without its descendants' text.
    var directText: String {
        children.filter { [.text, .cdata, .entityReference].contains($0.kind) }.map(\.text).joined()
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
