import Foundation

/// An untyped JSON value, for when a `Decodable` type would be overkill.
///
/// Subscripts never trap and never return optionals, so lookups chain; a missing key, an
/// index out of range or a lookup on the wrong kind of value gives ``null``. The typed
/// accessors then return nil:
///
/// ```swift
/// let json = try await session.request(url).serialized(by: .json).value
/// let name = json["user"]["name"].string          // String?
/// let firstID = json["items"][0]["id"].int        // Int?
/// let payload: JSON = ["name": "Ann", "tags": ["a", "b"], "admin": false]
/// ```
///
/// Integers stay exact (see ``JSONNumber``). `JSON` is `Codable`, so it can be a property of
/// a `Decodable` type, for parts of a document whose shape is not fixed.
public enum JSON: Sendable, Hashable {
    /// `null`, and the result of any failed lookup.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object.
    case object([String: JSON])

    // MARK: Lookup

    /// The member named `key` of an object; ``null`` when missing or when this is not an
    /// object. Setting a member turns ``null`` into an object; on other kinds it does nothing.
    public subscript(key: String) -> JSON {
        get {
            if case .object(let members) = self { return members[key] ?? .null }
            return .null
        }
        set {
            switch self {
            case .object(var members):
                self = .null  // release the storage so that the dictionary is not copied
                members[key] = newValue
                self = .object(members)
            case .null:
                self = .object([key: newValue])
            default:
                break
            }
        }
    }

    /// The element at `index` of an array; ``null`` when out of range or when this is not an
    /// array.
    public subscript(index: Int) -> JSON {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return .null
    }

    /// The value at a dot-separated key path, such as `"data.items"`; a component that is a
    /// whole number indexes an array (`"data.items.0.id"`).
    public subscript(keyPath keyPath: String) -> JSON {
        var current = self
        for component in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            if case .array = current, let index = Int(component) {
                current = current[index]
            } else {
                current = current[String(component)]
            }
        }
        return current
    }

    // MARK: Typed access

    /// Whether this is ``null`` (which includes a failed lookup).
    public var isNull: Bool { self == .null }

    /// The string, when this is a string.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, when this is a number.
    public var number: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an `Int`, when it is a whole number in range.
    public var int: Int? { number?.intValue }

    /// The number as an `Int64`, when it is a whole number in range.
    public var int64: Int64? { number?.int64Value }

    /// The number as a `Double`.
    public var double: Double? { number?.doubleValue }

    /// The value, when this is a bool.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var array: [JSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var object: [String: JSON]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The number of elements or members; 0 for other kinds.
    public var count: Int {
        switch self {
        case .array(let elements): return elements.count
        case .object(let members): return members.count
        default: return 0
        }
    }

    // MARK: Conversion

    /// Parses JSON text (any top-level value, not only objects and arrays), through
    /// `JSONSerialization`, which also limits nesting depth.
    ///
    /// - Throws: the parser's error when the text is not valid JSON.
    public init(parsing data: Data) throws {
        try self.init(jsonObject: try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    /// Converts the output of `JSONSerialization` (or any tree of `String`, `NSNumber`,
    /// `Bool`, integers, floating-point numbers, `NSNull`, arrays and string-keyed dictionaries).
    ///
    /// - Throws: ``CurlewError/Kind/serializationFailed`` for a value of another type.
    public init(jsonObject: Any) throws {
        // Containers first: checking a large array or dictionary against NSNull or NSNumber
        // would bridge it, which is slow.
        switch jsonObject {
        case let members as [String: Any]:
            var object: [String: JSON] = [:]
            object.reserveCapacity(members.count)
            for (key, value) in members { object[key] = try JSON(jsonObject: value) }
            self = .object(object)
        case let elements as [Any]:
            self = .array(try elements.map { try JSON(jsonObject: $0) })
        case let string as String:
            self = .string(string)
        case let number as NSNumber where type(of: jsonObject) is NSNumber.Type:
            self = JSON.convert(number)
        case is NSNull:
            self = .null
        case let bool as Bool:
            self = .bool(bool)
        case let int as Int:
            self = .number(JSONNumber(int))
        case let int as Int64:
            self = .number(JSONNumber(int))
        case let uint as UInt64:
            self = .number(JSONNumber(uint))
        case let double as Double:
            self = .number(JSONNumber(double))
        default:
            throw CurlewError(.serializationFailed, "a value of type \(type(of: jsonObject)) is not JSON")
        }
    }

    /// The class of boolean `NSNumber`s, which `JSONSerialization` uses for `true` and `false`.
    private static let booleanNumberClass: AnyClass = type(of: NSNumber(value: true))

    /// An `NSNumber` from `JSONSerialization`: booleans by their class, integers exact.
    private static func convert(_ number: NSNumber) -> JSON {
        if type(of: number) == booleanNumberClass { return .bool(number.boolValue) }
        if let decimal = number as? NSDecimalNumber {
            // Integers too large for Int64 arrive as decimal numbers: keep them exact when they fit UInt64.
            let text = decimal.stringValue
            if let int = Int64(text) { return .number(JSONNumber(int)) }
            if let uint = UInt64(text) { return .number(JSONNumber(uint)) }
            return .number(JSONNumber(decimal.doubleValue))
        }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "d"), UInt8(ascii: "f"):
            return .number(JSONNumber(number.doubleValue))
        case UInt8(ascii: "Q"), UInt8(ascii: "L"), UInt8(ascii: "I"), UInt8(ascii: "S"), UInt8(ascii: "C"):
            return .number(JSONNumber(number.uint64Value))
        default:
            return .number(JSONNumber(number.int64Value))
        }
    }

    /// Parses JSON text.
    public init(parsing text: String) throws {
        try self.init(parsing: Data(text.utf8))
    }

    /// The value as JSON text, keys sorted.
    public func data(prettyPrinted: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Decodes a `Decodable` type from this value (by way of its JSON text).
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(T.self, from: try data())
    }
}

extension JSON: CustomStringConvertible {
    /// Compact JSON text with sorted keys.
    public var description: String {
        guard let data = try? data() else { return "<JSON with a non-finite number>" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension JSON: Codable {
    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Strings first: they are the most common values, and every failed attempt costs a
        // thrown error. (`JSON(parsing:)` does not go through here and is much faster.)
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(JSONNumber.self) {
            self = .number(value)
        } else if let value = try? container.decode([String: JSON].self) {
            self = .object(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes the value as it is.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` is ``null``.
    public init(nilLiteral: ()) { self = .null }
    /// A bool literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// A dictionary literal; for a repeated key the last value wins.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
