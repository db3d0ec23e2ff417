import Foundation

/// A protocol an alternative service (RFC 7838) is reached over, by its ALPN name.
public enum AltSvcProtocol: String, Sendable, Hashable, CaseIterable, Comparable {
    /// HTTP/1.1 over TLS (`h1` in curl's Alt-Svc cache).
    case http1 = "h1"
    /// HTTP/2 over TLS (`h2`).
    case http2 = "h2"
    /// HTTP/3 over QUIC (`h3`): kept in a store and its file, but never used by a libcurl
    /// without HTTP/3 (see ``AlternativeServices/protocols``).
    case http3 = "h3"

    /// Orders protocols by their ALPN names (`h1` < `h2` < `h3`).
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One alternative service (RFC 7838) as an ``AltSvcStore`` holds it: the HTTPS origin
/// `originHost:originPort` may be reached at `originHost:alternativePort` over
/// ``alternativeProtocol`` until ``expires``.
///
/// The alternative keeps the origin's host name: only the port and the protocol change (see
/// ``AltSvcStore`` for why), and TLS still checks the certificate against the origin's name.
public struct AltSvcEntry: Sendable, Hashable {
    /// The origin's host, in lowercase ASCII (a punycode name for an international one), or an
    /// IPv4 address.
    public let originHost: String
    /// The origin's port (443 for `https://host/`).
    public let originPort: Int
    /// The protocol of the connection the `Alt-Svc` field came over; libcurl keys entries by it.
    public let originProtocol: AltSvcProtocol
    /// The protocol to speak to the alternative.
    public let alternativeProtocol: AltSvcProtocol
    /// The alternative's port, on the origin's host.
    public let alternativePort: Int
    /// When the entry lapses; never later than ``AltSvcStore/maximumLifetime`` after it was made.
    public let expires: Date
    /// The field's `persist=1`: the entry may outlive a change of network (kept for curl's file).
    public let persists: Bool

    /// An entry; a bad host or port fails with ``CurlewError/Kind/invalidRequest``. An expiry
    /// later than ``AltSvcStore/maximumLifetime`` from now is brought back to it.
    ///
    /// - Parameters:
    ///   - originHost: A DNS name (letters, digits, `-` and `.`; one trailing dot is dropped and
    ///     case is folded) or an IPv4 address, at most 253 characters.
    ///   - originPort: 1...65535.
    ///   - originProtocol: The protocol the origin was reached over; `.http1` by default.
    ///   - alternativeProtocol: The protocol of the alternative.
    ///   - alternativePort: 1...65535.
    ///   - expires: When the entry lapses.
    ///   - persists: The field's `persist=1`.
    public init(
        originHost: String, originPort: Int, originProtocol: AltSvcProtocol = .http1,
        alternativeProtocol: AltSvcProtocol, alternativePort: Int, expires: Date, persists: Bool = false
    ) throws(CurlewError) {
        guard let host = Self.normalizedHost(originHost) else {
            throw CurlewError(
                .invalidRequest,
                "the Alt-Svc origin host \(String(originHost.prefix(80)).debugDescription) is not a DNS name or an IPv4 address")
        }
        for (name, port) in [("origin", originPort), ("alternative", alternativePort)] where !(1...65_535).contains(port) {
            throw CurlewError(.invalidRequest, "the Alt-Svc \(name) port must lie within 1...65535, not \(port)")
        }
        self.init(
            host: host, originPort: originPort, originProtocol: originProtocol, alternativeProtocol: alternativeProtocol,
            alternativePort: alternativePort, expires: expires, persists: persists, now: Date())
    }

    /// An entry whose host and ports are already checked; `expires` is capped at `now` plus
    /// ``AltSvcStore/maximumLifetime``.
    init(
        host: String, originPort: Int, originProtocol: AltSvcProtocol, alternativeProtocol: AltSvcProtocol,
        alternativePort: Int, expires: Date, persists: Bool, now: Date
    ) {
        originHost = host
        self.originPort = originPort
        self.originProtocol = originProtocol
        self.alternativeProtocol = alternativeProtocol
        self.alternativePort = alternativePort
        self.expires = min(expires, now.addingTimeInterval(AltSvcStore.maximumLifetime))
        self.persists = persists
    }

    /// Whether the entry has lapsed at `now`.
    func hasExpired(at now: Date) -> Bool { expires <= now }

    /// The origin the entry belongs to.
    var origin: AltSvcOrigin { AltSvcOrigin(host: originHost, port: originPort) }

    /// What makes two entries the same alternative of one origin (a newer one replaces an older).
    var identity: String { "\(originProtocol.rawValue) \(alternativeProtocol.rawValue) \(alternativePort)" }

    /// `host` lowercased and without one trailing dot, or nil when it is not a DNS name or an
    /// IPv4 address (an IPv6 address has colons and fails): empty, too long, an empty label or
    /// one that starts or ends with `-`, or a character outside letters, digits, `-` and `.`.
    static func normalizedHost(_ host: String) -> String? {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= 253 else { return nil }
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= 63, label.first != "-", label.last != "-",
                label.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d })
            else { return nil }
        }
        return name
    }
}

/// An HTTPS origin an ``AltSvcStore`` keys its entries by.
struct AltSvcOrigin: Hashable, Sendable {
    let host: String
    let port: Int
}
