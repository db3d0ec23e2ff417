import Foundation

/// Turns a ``URLEncodedFormNode`` tree into `k=v&k2=v2` text.
struct URLEncodedFormSerializer {
    let arrayEncoding: URLEncodedFormEncoder.ArrayEncoding
    let nilEncoding: URLEncodedFormEncoder.NilEncoding
    let spaceEncoding: URLEncodedFormEncoder.SpaceEncoding
    let keyPathEncoding: URLEncodedFormEncoder.KeyPathEncoding
    /// The caller's ``URLEncodedFormEncoder/allowedCharacters``, or nil for the default set
    /// (checked byte by byte, without a `CharacterSet`).
    let customAllowed: CharacterSet?

    /// Serializes the members of a top-level object, keys sorted.
    func serialize(_ members: [String: URLEncodedFormNode]) -> String {
        var output = ""
        for key in members.keys.sorted() {
            guard let node = members[key] else { continue }
            append(node, name: escape(key), to: &output)
        }
        return output
    }

    private func append(_ node: URLEncodedFormNode, name: String, to output: inout String) {
        switch node {
        case .string(let value):
            appendPair(name, escape(value), to: &output)
        case .null:
            switch nilEncoding {
            case .dropKey: break
            case .dropValue: appendPair(name, "", to: &output)
            case .null: appendPair(name, "null", to: &output)
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                let elementName: String
                switch arrayEncoding {
                case .brackets: elementName = name + escape("[]")
                case .noBrackets: elementName = name
                case .indexInBrackets: elementName = name + escape("[\(index)]")
                }
                append(element, name: elementName, to: &output)
            }
        case .object(let members):
            for key in members.keys.sorted() {
                guard let member = members[key] else { continue }
                append(member, name: name + escape(keyPathEncoding.encode(key)), to: &output)
            }
        }
    }

    private func appendPair(_ name: String, _ value: String, to output: inout String) {
        if !output.isEmpty { output += "&" }
        output += name
        output += "="
        output += value
    }

    /// Percent-escapes `text` for a query component under RFC 3986.
    ///
    /// By default only the unreserved characters (`A-Z a-z 0-9 - . _ ~`) and `/` and `?` stay
    /// as they are. Every other byte of the UTF-8 form is escaped, including the sub-delimiters
    /// `& = + ; , ! $ ' ( ) *`, and `# [ ] : @`, so a value can never break out of its pair.
    /// With ``customAllowed``, the characters in it stay instead (never `% & = # +`, checked
    /// before).
    func escape(_ text: String) -> String {
        if let customAllowed { return escape(text, keeping: customAllowed) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if URLEncodedFormSerializer.isAllowed(byte) {
                bytes.append(byte)
            } else if byte == UInt8(ascii: " ") && spaceEncoding == .plusReplaced {
                bytes.append(UInt8(ascii: "+"))
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(URLEncodedFormSerializer.hexDigits[Int(byte >> 4)])
                bytes.append(URLEncodedFormSerializer.hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func escape(_ text: String, keeping allowed: CharacterSet) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if allowed.contains(scalar) {
                UTF8.encode(scalar) { bytes.append($0) }
            } else if scalar == " " && spaceEncoding == .plusReplaced {
                bytes.append(UInt8(ascii: "+"))
            } else {
                UTF8.encode(scalar) { byte in
                    bytes.append(UInt8(ascii: "%"))
                    bytes.append(URLEncodedFormSerializer.hexDigits[Int(byte >> 4)])
                    bytes.append(URLEncodedFormSerializer.hexDigits[Int(byte & 0x0F)])
                }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "/"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }
}
