import Foundation

/// One host known to want HTTPS only (HTTP Strict Transport Security, RFC 6797), as an
/// ``HSTSStore`` holds it: learned from a `Strict-Transport-Security` header or preloaded.
public struct HSTSEntry: Sendable, Hashable {
    /// The host, in lowercase ASCII (a punycode name for an international one), without a
    /// trailing dot. Never an IP address: RFC 6797 §8.1 applies HSTS to names only.
    public let host: String
    /// Whether the entry also covers every subdomain of ``host`` (`includeSubDomains`).
    public var includesSubdomains: Bool
    /// When the entry lapses; nil for never (a preloaded entry, say).
    public var expires: Date?

    /// An entry for `host`; a bad host fails with ``CurlewError/Kind/invalidRequest``.
    ///
    /// - Parameters:
    ///   - host: A DNS name: letters, digits, `-` and `.` (one trailing dot is dropped and
    ///     case is folded); not an IP address, at most 253 characters.
    ///   - includesSubdomains: Whether subdomains of `host` are covered too.
    ///   - expires: When the entry lapses; nil for never.
    public init(host: String, includesSubdomains: Bool = false, expires: Date? = nil) throws(CurlewError) {
        guard let normalized = Self.normalizedHost(host) else {
            throw CurlewError(
                .invalidRequest,
                "the HSTS host \(String(host.prefix(80)).debugDescription) is not a DNS name (letters, digits, '-' and '.'; not an IP address)")
        }
        self.host = normalized
        self.includesSubdomains = includesSubdomains
        self.expires = expires
    }

    /// An entry whose host is already normalized.
    init(normalizedHost: String, includesSubdomains: Bool, expires: Date?) {
        host = normalizedHost
        self.includesSubdomains = includesSubdomains
        self.expires = expires
    }

    /// Whether the entry has lapsed at `now`.
    func hasExpired(at now: Date) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }

    /// `host` lowercased and without one trailing dot, or nil when it is not a DNS name HSTS
    /// can apply to: empty, too long, an empty label or one that starts or ends with `-`, a
    /// character outside letters, digits, `-` and `.`, or an IPv4 address (an IPv6 one has colons, so it fails the character test).
    static func normalizedHost(_ host: String) -> String? {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= 253 else { return nil }
        var labelLength = 0
        var previous: UInt8 = 0
        for byte in name.utf8 {
            defer { previous = byte }
            switch byte {
            case UInt8(ascii: "."):
                guard labelLength > 0, previous != UInt8(ascii: "-") else { return nil }
                labelLength = 0
            case UInt8(ascii: "-") where labelLength == 0:
                return nil  // A label does not start with a hyphen.
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                labelLength += 1
                guard labelLength <= 63 else { return nil }
            default:
                return nil
            }
        }
        guard labelLength > 0, previous != UInt8(ascii: "-"), !IPAddressText.isIPv4(name) else { return nil }
        return name
    }
}
