import Foundation

/// The shared machinery of one URL-form encoding run: applies the options of a
/// ``URLEncodedFormEncoder`` to scalars and keys, drives the `Encoder` for `Encodable` values,
/// and converts untyped values.
struct URLEncodedFormEncodingContext {
    let options: URLEncodedFormEncoder

    // MARK: Encodable values

    /// Encodes `value` into a tree; nil when it encoded nothing at all.
    func encodeRoot<Value: Encodable>(_ value: Value) throws -> URLEncodedFormNode? {
        let root = URLEncodedFormBuilder()
        try encode(value, into: root, codingPath: [])
        return root.freeze()
    }

    /// Encodes one value into `node`, handling the types with a special rendering.
    func encode<Value: Encodable>(_ value: Value, into node: URLEncodedFormBuilder, codingPath: [any CodingKey])
        throws
    {
        if let scalar = try scalar(for: value, codingPath: codingPath) {
            node.set(.string(scalar))
            return
        }
        // Everything else, `Date` and `Data` with the deferred strategies included, encodes itself.
        try value.encode(to: URLEncodedFormValueEncoder(node: node, context: self, codingPath: codingPath))
    }

    /// The text of a scalar value, or nil when `value` is not a scalar this encoder renders
    /// itself (then it is encoded through its `Encodable` conformance).
    func scalar(for value: Any, codingPath: [any CodingKey]) throws -> String? {
        switch value {
        case let bool as Bool: return render(bool)
        case let string as String: return string
        case let substring as Substring: return String(substring)
        case let character as Character: return String(character)
        case let int as Int: return String(int)
        case let int as Int8: return String(int)
        case let int as Int16: return String(int)
        case let int as Int32: return String(int)
        case let int as Int64: return String(int)
        case let uint as UInt: return String(uint)
        case let uint as UInt8: return String(uint)
        case let uint as UInt16: return String(uint)
        case let uint as UInt32: return String(uint)
        case let uint as UInt64: return String(uint)
        case let double as Double: return try render(double, codingPath: codingPath)
        case let float as Float: return try render(Double(float), codingPath: codingPath)
        case let decimal as Decimal: return decimal.description
        case let url as URL: return url.absoluteString
        case let date as Date: return try render(date)
        case let data as Data: return try render(data)
        default: return nil
        }
    }

    private func render(_ bool: Bool) -> String {
        switch options.boolEncoding {
        case .numeric: return bool ? "1" : "0"
        case .literal: return bool ? "true" : "false"
        }
    }

    private func render(_ double: Double, codingPath: [any CodingKey]) throws -> String {
        guard double.isFinite else {
            throw EncodingError.invalidValue(
                double,
                EncodingError.Context(
                    codingPath: codingPath, debugDescription: "\(double) cannot be URL-form encoded"))
        }
        return String(double)
    }

    private func render(_ date: Date) throws -> String? {
        switch options.dateEncoding {
        case .deferredToDate: return nil
        case .secondsSince1970: return String(date.timeIntervalSince1970)
        case .millisecondsSince1970: return String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        case .iso8601: return date.formatted(.iso8601)
        case .custom(let render): return try render(date)
        }
    }

    private func render(_ data: Data) throws -> String? {
        switch options.dataEncoding {
        case .base64: return data.base64EncodedString()
        case .deferredToData: return nil
        case .custom(let render): return try render(data)
        }
    }

    // MARK: Keys

    /// Applies the key strategy.
    func convert(key: String) -> String {
        switch options.keyEncoding {
        case .useDefaultKeys: return key
        case .convertToSnakeCase: return URLEncodedFormEncodingContext.separateWords(key, with: "_")
        case .convertToKebabCase: return URLEncodedFormEncodingContext.separateWords(key, with: "-")
        case .custom(let transform): return transform(key)
        }
    }

    /// `userID2Name` → `user_id2_name`: a separator goes before each uppercase letter that
    /// starts a word (after a lowercase letter or digit, or before a lowercase letter that ends
    /// an acronym), and everything is lowercased. Leading and trailing underscores stay.
    static func separateWords(_ key: String, with separator: Character) -> String {
        let characters = Array(key)
        guard !characters.isEmpty else { return key }
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let afterLower = previous.isLowercase || previous.isNumber
                let endsAcronym = previous.isUppercase && (next?.isLowercase ?? false)
                if afterLower || endsAcronym { result.append(separator) }
            }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }

    // MARK: Untyped values

    /// Converts one value of an untyped dictionary; `path` names it in errors (`a[b][0]`).
    func node(fromUntyped value: Any, path: String) throws -> URLEncodedFormNode {
        let value = URLEncodedFormEncodingContext.unwrapOptional(value)
        guard let value else { return .null }
        if value is NSNull { return .null }
        if let number = value as? NSNumber, type(of: value) is NSNumber.Type {
            return .string(render(number))
        }
        do {
            if let scalar = try scalar(for: value, codingPath: []) { return .string(scalar) }
        } catch {
            throw CurlewError(
                .invalidRequest, "the value for '\(path)' cannot be URL-form encoded: \(error)",
                underlying: error)
        }
        if let dictionary = value as? [String: Any] {
            var members: [String: URLEncodedFormNode] = [:]
            for (key, member) in dictionary {
                let name = convert(key: key)
                members[name] = try node(fromUntyped: member, path: "\(path)[\(name)]")
            }
            return .object(members)
        }
        if let array = value as? [Any] {
            return .array(
                try array.enumerated().map { index, element in
                    try node(fromUntyped: element, path: "\(path)[\(index)]")
                })
        }
        if let encodable = value as? any Encodable {
            do {
                let builder = URLEncodedFormBuilder()
                try encode(encodable, into: builder, codingPath: [])
                return builder.freeze() ?? .null
            } catch {
                throw CurlewError(
                    .invalidRequest, "the value for '\(path)' cannot be URL-form encoded: \(error)",
                    underlying: error)
            }
        }
        throw CurlewError(
            .invalidRequest,
            "the value for '\(path)' has type \(type(of: value)), which cannot be URL-form encoded")
    }

    /// `NSNumber` objects (from `JSONSerialization` and friends): booleans by their type code.
    private func render(_ number: NSNumber) -> String {
        if String(describing: type(of: number)).contains("Boolean") { return render(number.boolValue) }
        return number.stringValue
    }

    /// The wrapped value of an `Optional` held in an `Any`, or the value itself.
    private static func unwrapOptional(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let child = mirror.children.first else { return nil }
        return unwrapOptional(child.value)
    }
}
