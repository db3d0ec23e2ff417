// Fuzz target `urlform`: URLEncodedFormEncoder, both its `Encodable` path and its untyped
// `[String: any Sendable]` path, over trees of strings, integers, booleans, doubles, nils,
// arrays and dictionaries decoded from the fuzz bytes, under every array, bool, nil and space
// option.
//
// Properties:
// - The output holds only unreserved characters, `/ ? % & =` (and `+` only with
//   `.plusReplaced`), with `%` always followed by two upper-case hex digits.
// - Split at `&` and `=` and percent-decoded, the output is exactly the list of pairs a
//   reference flattening of the tree gives (keys sorted at every level, arrays in order,
//   `k[]` / `k` / `k[i]` names, nils per the option): a round trip.
// - Both paths give the same text; a non-finite double makes both throw invalidRequest.
// - With snake / kebab case keys, the conversion is idempotent, and when it maps no two keys
//   of a dictionary to one name the round trip holds with the converted names.
@testable import Curlew
import Foundation
import FuzzSupport

indirect enum Value: Encodable, Equatable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case double(Double)
    case null
    case array([Value])
    case object([String: Value])

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (key, member) in members { try container.encode(member, forKey: Key(stringValue: key)) }
        }
    }

    /// The same tree as untyped values.
    var untyped: any Sendable {
        switch self {
        case .string(let value): value
        case .int(let value): value
        case .bool(let value): value
        case .double(let value): value
        case .null: Int?.none as any Sendable
        case .array(let elements): elements.map(\.untyped)
        case .object(let members): members.mapValues(\.untyped)
        }
    }

    var hasNonFiniteDouble: Bool {
        switch self {
        case .double(let value): !value.isFinite
        case .array(let elements): elements.contains(where: \.hasNonFiniteDouble)
        case .object(let members): members.values.contains(where: \.hasNonFiniteDouble)
        default: false
        }
    }
}

/// Characters that make escaping interesting: delimiters, brackets, `%`, `+`, space,
/// non-ASCII (precomposed and decomposed), controls, an emoji.
let alphabet = [
    "a", "Z", "9", " ", "&", "=", "+", "%", "[", "]", "#", "/", "?", "~", "-", ".", "_", "é", "e\u{301}",
    "\u{0}", "\r\n", "😀", "%2", "aB", "ID", "Ω", "\u{130}",
]

func readString(_ input: inout FuzzInput) -> String {
    input.bool() ? input.string(upTo: 6, from: alphabet) : input.string(upTo: 6)
}

func readValue(_ input: inout FuzzInput, depth: Int) -> Value {
    switch input.byte() % (depth >= 4 ? 5 : 7) {
    case 0: return .string(readString(&input))
    case 1:
        var bits: UInt64 = 0
        for _ in 0..<Int(input.byte() % 9) { bits = bits << 8 | UInt64(input.byte()) }
        return .int(Int(truncatingIfNeeded: bits))
    case 2: return .bool(input.bool())
    case 3:
        var bits: UInt64 = 0
        for _ in 0..<8 { bits = bits << 8 | UInt64(input.byte()) }
        // Mostly short, readable doubles; sometimes any bit pattern (NaN and infinities too).
        return .double(input.bool() ? Double(bitPattern: bits) : Double(Int16(truncatingIfNeeded: bits)) / 8)
    case 4: return .null
    case 5: return .array((0..<Int(input.byte() % 4)).map { _ in readValue(&input, depth: depth + 1) })
    default: return readObject(&input, depth: depth + 1)
    }
}

func readObject(_ input: inout FuzzInput, depth: Int) -> Value {
    var members: [String: Value] = [:]
    for _ in 0..<Int(input.byte() % 5) { members[readString(&input)] = readValue(&input, depth: depth) }
    return .object(members)
}

/// The decoded pairs the output must hold, flattened without the encoder's code.
func flatten(_ value: Value, name: String?, options: URLEncodedFormEncoder, convert: (String) -> String) -> [(String, String)] {
    guard let name else {  // the top level
        guard case .object(let members) = value else { return [] }
        let converted = Dictionary(members.map { (convert($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        return converted.keys.sorted().flatMap { flatten(converted[$0]!, name: $0, options: options, convert: convert) }
    }
    switch value {
    case .string(let text): return [(name, text)]
    case .int(let int): return [(name, String(int))]
    case .bool(let bool):
        return [(name, options.boolEncoding == .numeric ? (bool ? "1" : "0") : (bool ? "true" : "false"))]
    case .double(let double): return [(name, String(double))]
    case .null:
        switch options.nilEncoding {
        case .dropKey: return []
        case .dropValue: return [(name, "")]
        case .null: return [(name, "null")]
        }
    case .array(let elements):
        return elements.enumerated().flatMap { index, element in
            let elementName =
                switch options.arrayEncoding {
                case .brackets: name + "[]"
                case .noBrackets: name
                case .indexInBrackets: name + "[\(index)]"
                }
            return flatten(element, name: elementName, options: options, convert: convert)
        }
    case .object(let members):
        let converted = Dictionary(members.map { (convert($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        return converted.keys.sorted().flatMap { key in
            flatten(converted[key]!, name: name + "[" + key + "]", options: options, convert: convert)
        }
    }
}

/// Whether the key conversion maps two keys of one dictionary to the same name anywhere.
func conversionCollides(_ value: Value, convert: (String) -> String) -> Bool {
    switch value {
    case .array(let elements): return elements.contains { conversionCollides($0, convert: convert) }
    case .object(let members):
        return Set(members.keys.map(convert)).count != members.count
            || members.values.contains { conversionCollides($0, convert: convert) }
    default: return false
    }
}

func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// Checks the alphabet of the output and decodes it into pairs.
func parse(_ output: String, plus: Bool) -> [(String, String)] {
    let bytes = Array(output.utf8)
    for (index, byte) in bytes.enumerated() {
        let allowed =
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || Array("-._~/?%&=".utf8).contains(byte) || (plus && byte == UInt8(ascii: "+"))
        check(allowed, "byte \(byte) at \(index) of \(output.debugDescription)")
        if byte == UInt8(ascii: "%") {
            check(
                index + 2 < bytes.count && hexValue(bytes[index + 1]) != nil && hexValue(bytes[index + 2]) != nil,
                "bad escape at \(index) of \(output.debugDescription)")
        }
    }
    func decode(_ part: ArraySlice<UInt8>) -> String {
        var result: [UInt8] = []
        var index = part.startIndex
        while index < part.endIndex {
            let byte = part[index]
            if byte == UInt8(ascii: "%") {
                result.append(hexValue(part[index + 1])! << 4 | hexValue(part[index + 2])!)
                index += 3
            } else {
                result.append(plus && byte == UInt8(ascii: "+") ? 0x20 : byte)
                index += 1
            }
        }
        let text = String(validating: result, as: UTF8.self)
        check(text != nil, "escaped bytes are not UTF-8 in \(output.debugDescription)")
        return text!
    }
    guard !bytes.isEmpty else { return [] }
    return bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map { pair in
        let parts = pair.split(separator: UInt8(ascii: "="), omittingEmptySubsequences: false)
        check(parts.count == 2, "pair \(String(decoding: pair, as: UTF8.self)) has \(parts.count - 1) '='")
        return (decode(parts[0]), decode(parts[1]))
    }
}

func samePairs(_ lhs: [(String, String)], _ rhs: [(String, String)]) -> Bool {
    // Byte for byte: String equality would take canonically equivalent text as equal.
    lhs.count == rhs.count
        && zip(lhs, rhs).allSatisfy { Array($0.0.utf8) == Array($1.0.utf8) && Array($0.1.utf8) == Array($1.1.utf8) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let arrays: [URLEncodedFormEncoder.ArrayEncoding] = [.brackets, .noBrackets, .indexInBrackets]
    let nils: [URLEncodedFormEncoder.NilEncoding] = [.dropKey, .dropValue, .null]
    var options = URLEncodedFormEncoder(
        arrayEncoding: arrays[Int(input.byte()) % 3], boolEncoding: input.bool() ? .numeric : .literal,
        nilEncoding: nils[Int(input.byte()) % 3], spaceEncoding: input.bool() ? .percentEscaped : .plusReplaced)
    let keyMode = input.byte() % 3
    options.keyEncoding = [.useDefaultKeys, .convertToSnakeCase, .convertToKebabCase][Int(keyMode)]
    let convert: (String) -> String =
        switch keyMode {
        case 1: { URLEncodedFormEncodingContext.separateWords($0, with: "_") }
        case 2: { URLEncodedFormEncodingContext.separateWords($0, with: "-") }
        default: { $0 }
        }
    let tree = readObject(&input, depth: 0)
    guard case .object(let members) = tree else { return 0 }

    let typed = Result { try options.encode(tree) }
    let untyped = Result { try options.encode(members.mapValues(\.untyped)) }

    if tree.hasNonFiniteDouble {
        for result in [typed, untyped] {
            guard case .failure(let error) = result else {
                check(false, "a non-finite double was encoded: \(result)")
                return 0
            }
            check((error as? CurlewError)?.kind == .invalidRequest, "unexpected error \(error)")
        }
        return 0
    }
    guard case .success(let typedText) = typed, case .success(let untypedText) = untyped else {
        check(false, "encoding failed: \(typed) / \(untyped)")
        return 0
    }

    if keyMode != 0 {
        for key in members.keys {
            check(convert(convert(key)) == convert(key), "key conversion of \(key.debugDescription) is not idempotent")
        }
        // Colliding names: which value wins is not specified (nor the same in both paths).
        if conversionCollides(tree, convert: convert) { return 0 }
    }
    check(typedText == untypedText, "Encodable \(typedText.debugDescription) != untyped \(untypedText.debugDescription)")
    let expected = flatten(tree, name: nil, options: options, convert: convert)
    let got = parse(typedText, plus: options.spaceEncoding == .plusReplaced)
    check(samePairs(got, expected), "\(typedText.debugDescription) decodes to \(got), expected \(expected)")
    return 0
}

/// The executable's entry point (SwiftPM aliases `main` to it): libFuzzer's driver.
@_cdecl("urlform_main")
public func urlformMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1)!, size) }
}
