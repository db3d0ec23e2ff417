/// Which hosts a ``TrustPolicy`` applies to.
///
/// Three forms, from the narrowest to the broadest:
/// - ``exact(_:)``: one host name or IP address (`api.example.com`, `127.0.0.1`, `::1`);
/// - ``wildcard(_:)``: `*.example.com`, any host with exactly one more label, like a
///   certificate wildcard (`a.example.com`, not `example.com` nor `a.b.example.com`);
/// - ``domainAndSubdomains(_:)``: the domain itself and every host under it, at any depth
///   (HTTPTransport's "host contains" behaviour, spelled so that its reach shows).
///
/// When several patterns match a host, the most specific wins: an exact host, then a wildcard,
/// then the longest domain. Host names compare without regard to case or a trailing dot.
public struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    enum Form: Hashable, Sendable {
        case exact(String)
        /// The parent domain of `*.parent`.
        case wildcard(String)
        case domainAndSubdomains(String)
    }

    let form: Form
    /// The text the pattern was made from, for error messages.
    let text: String

    /// Exactly `host` (a name or an IP address; brackets around an IPv6 address are optional).
    public static func exact(_ host: String) -> HostPattern {
        HostPattern(form: .exact(normalized(host)), text: host)
    }

    /// `*.parent`: any host with one label more than `parent`. `pattern` must start with `*.`.
    public static func wildcard(_ pattern: String) -> HostPattern {
        let parent = pattern.hasPrefix("*.") ? String(pattern.dropFirst(2)) : ""
        return HostPattern(form: .wildcard(normalized(parent)), text: pattern)
    }

    /// `domain` and every host under it (`example.com`, `a.example.com`, `a.b.example.com`).
    public static func domainAndSubdomains(_ domain: String) -> HostPattern {
        HostPattern(form: .domainAndSubdomains(normalized(domain)), text: domain)
    }

    public var description: String {
        switch form {
        case .exact: text
        case .wildcard: text
        case .domainAndSubdomains: "\(text) and its subdomains"
        }
    }

    /// Why the pattern cannot match anything sensible, or nil when it is fine.
    var problem: String? {
        let name: String
        switch form {
        case .exact(let host): name = host
        case .wildcard(let parent):
            guard text.hasPrefix("*.") else { return "a wildcard pattern must start with '*.'" }
            guard parent.contains(".") else { return "a wildcard must cover a domain of at least two labels, like *.example.com" }
            name = parent
        case .domainAndSubdomains(let domain): name = domain
        }
        if name.isEmpty { return "the host is empty" }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-.:_".unicodeScalars.contains(scalar)
        }
        return allowed ? nil : "the host contains characters no host name has"
    }

    /// How well the pattern matches `host` (already normalized): nil when it does not; higher
    /// is more specific.
    func specificity(matching host: String) -> Int? {
        switch form {
        case .exact(let name):
            return name == host ? Int.max : nil
        case .wildcard(let parent):
            guard host.hasSuffix("." + parent) else { return nil }
            let label = host.dropLast(parent.count + 1)
            return !label.isEmpty && !label.contains(".") ? Int.max - 1 : nil
        case .domainAndSubdomains(let domain):
            return host == domain || host.hasSuffix("." + domain) ? domain.count : nil
        }
    }

    /// Lowercased, without a trailing dot or IPv6 brackets.
    static func normalized(_ host: String) -> String {
        var result = host.lowercased()
        if result.hasPrefix("["), result.hasSuffix("]") { result = String(result.dropFirst().dropLast()) }
        while result.hasSuffix(".") { result.removeLast() }
        return result
    }
}
