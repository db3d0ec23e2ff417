import Foundation
import HTTPTypes

/// The `Cache-Control` directives of a request or a response (RFC 9111 §5.2, RFC 5861,
/// RFC 8246) that a private cache acts on. Unknown directives are ignored.
struct CacheControl: Sendable, Equatable {
    var maxAge: Int?
    var maxStale: Int?
    var minFresh: Int?
    var noCache = false
    var noStore = false
    var onlyIfCached = false
    var mustRevalidate = false
    var isPublic = false
    var isPrivate = false
    var immutable = false
    var sMaxAge: Int?
    var staleWhileRevalidate: Int?
    var staleIfError: Int?

    init() {}

    /// Parses every `Cache-Control` field of `fields`; `Pragma: no-cache` counts as `no-cache`
    /// when there is no `Cache-Control` at all (RFC 9111 §5.4).
    init(_ fields: HTTPFields) {
        let values = fields[values: .cacheControl]
        self.init(values)
        if values.isEmpty, let name = CacheRules.pragma, let pragma = fields[name], pragma.lowercased().contains("no-cache") {
            noCache = true
        }
    }

    init(_ values: [String]) {
        for value in values {
            for directive in Self.split(value) {
                apply(directive.name, directive.value)
            }
        }
    }

    private mutating func apply(_ name: String, _ value: String?) {
        switch name {
        case "max-age": maxAge = Self.seconds(value) ?? 0
        case "s-maxage": sMaxAge = Self.seconds(value) ?? 0
        // `max-stale` without a value accepts a response of any staleness.
        case "max-stale": maxStale = value == nil ? Int.max : (Self.seconds(value) ?? 0)
        case "min-fresh": minFresh = Self.seconds(value) ?? 0
        case "no-cache": noCache = true
        case "no-store": noStore = true
        case "only-if-cached": onlyIfCached = true
        case "must-revalidate": mustRevalidate = true
        case "public": isPublic = true
        case "private": isPrivate = true
        case "immutable": immutable = true
        case "stale-while-revalidate": staleWhileRevalidate = Self.seconds(value)
        case "stale-if-error": staleIfError = Self.seconds(value)
        default: break
        }
    }

    /// A delta-seconds value (RFC 9111 §1.2.2); values past 2^31 are taken as 2^31.
    static func seconds(_ value: String?) -> Int? {
        guard let value, !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(value.prefix(10)).map { min($0, 1 << 31) } ?? (1 << 31)
    }

    /// Splits a field value into lowercased names and unquoted values, honouring quoted commas.
    static func split(_ value: String) -> [(name: String, value: String?)] {
        var result: [(name: String, value: String?)] = []
        var current = ""
        var quoted = false
        func flush() {
            let part = current.trimmingCharacters(in: .whitespaces)
            current = ""
            guard !part.isEmpty else { return }
            if let equals = part.firstIndex(of: "=") {
                let name = part[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                var raw = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                if raw.count >= 2, raw.hasPrefix("\""), raw.hasSuffix("\"") { raw = String(raw.dropFirst().dropLast()) }
                result.append((name, raw))
            } else {
                result.append((part.lowercased(), nil))
            }
        }
        for character in value {
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted { flush() } else { current.append(character) }
        }
        flush()
        return result
    }
}
