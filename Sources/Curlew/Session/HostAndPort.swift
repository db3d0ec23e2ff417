import Foundation

/// A host name (or IP address) and a TCP port, as the keys and targets of
/// ``NetworkControls/hostAddresses`` and ``NetworkControls/connectTo`` (curl's `HOST:PORT`).
///
/// The host is compared as written, case-insensitively by libcurl; it must be a name without
/// `:`, `,`, `[`, `]`, `/`, `@`, `!`, whitespace or control characters (those would break
/// curl's `host:port:…` syntax), or — where a target may be one — an IP address. The port is
/// 1 through 65535. Bad values fail the request with ``CurlewError/Kind/invalidRequest``.
public struct HostAndPort: Sendable, Hashable, CustomStringConvertible {
    /// The host name or address.
    public var host: String
    /// The TCP port, 1 through 65535.
    public var port: Int

    /// Creates a host and port.
    public init(_ host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with an IPv6 address in brackets.
    public var description: String { "\(Self.bracketed(host)):\(port)" }

    /// `host` in brackets when it is an IPv6 address, as curl's `host:port` syntaxes want it.
    static func bracketed(_ host: String) -> String {
        IPAddressText.isIPv6(host) ? "[\(host)]" : host
    }

    /// Why this cannot be a key of curl's `host:port:…` syntaxes (no IPv6 address there), or nil.
    var problemAsKey: String? {
        if let problem = Self.portProblem(port) { return "\(problem) in '\(self)'" }
        return Self.nameProblem(host)
    }

    /// Why this cannot be a `CURLOPT_CONNECT_TO` target (a name or an IP address), or nil.
    var problemAsTarget: String? {
        if let problem = Self.portProblem(port) { return "\(problem) in '\(self)'" }
        if IPAddressText.isIPv4(host) || IPAddressText.isIPv6(host) { return nil }
        return Self.nameProblem(host)
    }

    private static func portProblem(_ port: Int) -> String? {
        (1...65535).contains(port) ? nil : "the port \(port) is not 1 through 65535"
    }

    /// Why `host` cannot stand as a host name in curl's `host:port:…` syntaxes, or nil.
    static func nameProblem(_ host: String) -> String? {
        guard !host.isEmpty else { return "a host name is empty" }
        guard host.utf8.count <= 253 else { return "the host name '\(host.prefix(40))…' is longer than 253 bytes" }
        let forbidden: Set<UInt8> = Set(":,[]/@!?#\\%".utf8)
        for byte in host.utf8 where byte <= 0x20 || byte == 0x7F || forbidden.contains(byte) {
            return "the host name \(String(host.prefix(60)).debugDescription) has a character curl's host:port syntax cannot carry"
        }
        return nil
    }
}
