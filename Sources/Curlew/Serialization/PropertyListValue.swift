import Foundation

/// An untyped property-list value, as parsed by the `.propertyList` serializer.
///
/// Like ``JSON``, subscripts never trap: a failed lookup gives nil from the typed accessors.
///
/// ```swift
/// let plist = try await session.request(url).serialized(by: .propertyList).value
/// let version = plist["CFBundleVersion"]?.string
/// ```
public enum PropertyListValue: Sendable, Hashable {
    /// `<true/>` or `<false/>`.
    case bool(Bool)
    /// `<integer>`.
    case integer(Int64)
    /// `<real>`.
    case real(Double)
    /// `<string>`.
    case string(String)
    /// `<date>`.
    case date(Date)
    /// `<data>`.
    case data(Data)
    /// `<array>`.
    case array([PropertyListValue])
    /// `<dict>`.
    case dictionary([String: PropertyListValue])

    /// The member named `key`, when this is a dictionary that has it.
    public subscript(key: String) -> PropertyListValue? {
        if case .dictionary(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index`, when this is an array that long.
    public subscript(index: Int) -> PropertyListValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The value, when this is a bool.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value, when this is an integer (or a real with a whole value in range).
    public var int: Int? {
        switch self {
        case .integer(let value): return Int(exactly: value)
        case .real(let value): return Int(exactly: value)
        default: return nil
        }
    }

    /// The value, when this is a real or an integer.
    public var double: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        default: return nil
        }
    }

    /// The value, when this is a string.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value, when this is a date.
    public var date: Date? {
        if case .date(let value) = self { return value }
        return nil
    }

    /// The value, when this is data.
    public var dataValue: Data? {
        if case .data(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var array: [PropertyListValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is a dictionary.
    public var dictionary: [String: PropertyListValue]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }
}

extension PropertyListValue: Codable {
    /// Decodes any property-list value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .real(value)
        } else if let value = try? container.decode(Date.self) {
            self = .date(value)
        } else if let value = try? container.decode(Data.self) {
            self = .data(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: PropertyListValue].self) {
            self = .dictionary(value)
        } else if let value = try? container.decode([PropertyListValue].self) {
            self = .array(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a property-list value")
        }
    }

    /// Encodes the value as it is.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .date(let value): try container.encode(value)
        case .data(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .dictionary(let value): try container.encode(value)
        }
    }
}
