import Foundation

/// A JSON number that keeps integers exact: `2^63 - 1` stays an integer instead of becoming
/// an approximate `Double`.
///
/// Numbers compare by value, so `JSONNumber(1) == JSONNumber(1.0)`.
public struct JSONNumber: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral
{
    enum Storage: Sendable {
        case int(Int64)
        case uint(UInt64)
        case double(Double)
    }

    let storage: Storage

    /// A signed integer.
    public init(_ value: Int64) { storage = .int(value) }
    /// A signed integer.
    public init(_ value: Int) { storage = .int(Int64(value)) }
    /// An unsigned integer; kept exact above `Int64.max`.
    public init(_ value: UInt64) { storage = value <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(value) }
    /// A floating-point number.
    public init(_ value: Double) { storage = .double(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self.init(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self.init(value) }

    /// The value as a `Double` (large integers are rounded).
    public var doubleValue: Double {
        switch storage {
        case .int(let value): return Double(value)
        case .uint(let value): return Double(value)
        case .double(let value): return value
        }
    }

    /// The value as an `Int64` when it is a whole number in range, else nil.
    public var int64Value: Int64? {
        switch storage {
        case .int(let value): return value
        case .uint: return nil
        case .double(let value): return Int64(exactly: value)
        }
    }

    /// The value as an `Int` when it is a whole number in range, else nil.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// The value as a `UInt64` when it is a non-negative whole number in range, else nil.
    public var uint64Value: UInt64? {
        switch storage {
        case .int(let value): return UInt64(exactly: value)
        case .uint(let value): return value
        case .double(let value): return UInt64(exactly: value)
        }
    }

    /// Whether the number was written or created as a floating-point value.
    public var isFloatingPoint: Bool {
        if case .double = storage { return true }
        return false
    }

    /// The number as JSON text.
    public var description: String {
        switch storage {
        case .int(let value): return String(value)
        case .uint(let value): return String(value)
        case .double(let value): return String(value)
        }
    }

    /// Whether two numbers have the same value, whatever their representation.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.int(let a), .int(let b)): return a == b
        case (.uint(let a), .uint(let b)): return a == b
        case (.int, .uint), (.uint, .int): return false
        default:
            if let a = lhs.int64Value, let b = rhs.int64Value { return a == b }
            if let a = lhs.uint64Value, let b = rhs.uint64Value { return a == b }
            return lhs.doubleValue == rhs.doubleValue
        }
    }

    /// Orders numbers by value.
    public static func < (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.int(let a), .int(let b)): return a < b
        case (.uint(let a), .uint(let b)): return a < b
        case (.int, .uint): return true
        case (.uint, .int): return false
        default: return lhs.doubleValue < rhs.doubleValue
        }
    }

    /// Hashes the value, so that equal numbers hash alike.
    public func hash(into hasher: inout Hasher) {
        // Equal numbers must hash alike whatever their storage: whole numbers hash as integers.
        if let value = int64Value {
            hasher.combine(value)
        } else if let value = uint64Value {
            hasher.combine(value)
        } else {
            hasher.combine(doubleValue)
        }
    }

    /// Decodes an integer when the text is one, else a `Double`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int64.self) {
            storage = .int(value)
        } else if let value = try? container.decode(UInt64.self) {
            storage = .uint(value)
        } else {
            storage = .double(try container.decode(Double.self))
        }
    }

    /// Encodes the number in its own representation.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch storage {
        case .int(let value): try container.encode(value)
        case .uint(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        }
    }
}
