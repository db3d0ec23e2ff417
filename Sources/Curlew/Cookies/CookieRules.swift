import Foundation

/// The matching rules of RFC 6265 §5.1: canonical hosts, domain-match, path-match and the
/// default path.
enum CookieRules {
    /// Lowercase, without a leading dot or the brackets of an IPv6 literal.
    static func canonicalDomain(_ domain: String) -> String {
        var text = domain.lowercased()
        while text.hasPrefix(".") { text.removeFirst() }
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Whether `host` is a literal IPv4 or IPv6 address.
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isNumber) && (Int(part) ?? 256) <= 255
        }
    }

    /// §5.1.3: the host equals the domain, or ends with "." + domain and is not an IP address.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        return host.hasSuffix("." + domain) && !isIPAddress(host)
    }

    /// §5.1.4: the request path equals the cookie path, or continues it after a "/".
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// The path of `url` as cookies see it: percent-encoded, "/" when empty.
    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : path
    }

    /// §5.1.4: the directory of the request path, used when a cookie has no `Path`.
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else {
            return "/"
        }
        return String(path[..<lastSlash])
    }

    /// https, or a loopback host, which browsers also treat as secure.
    static func isSecureChannel(_ url: URL) -> Bool {
        if url.scheme?.lowercased() == "https" { return true }
        return isLoopback(url.host.map(canonicalDomain) ?? "")
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasSuffix(".localhost") || host == "::1"
            || (host.hasPrefix("127.") && isIPAddress(host))
    }

    /// Whether a name and value can go in a `Cookie` field: a non-empty name without
    /// separators, and no control characters or `;` anywhere.
    static func isSendable(name: String, value: String) -> Bool {
        func clean(_ byte: UInt8) -> Bool { byte >= 0x20 && byte != 0x7F && byte != UInt8(ascii: ";") }
        return !name.isEmpty && name.utf8.allSatisfy { clean($0) && $0 != UInt8(ascii: "=") && $0 != 0x20 }
            && value.utf8.allSatisfy { clean($0) || $0 == 0x09 }
    }

    /// RFC 6265bis §5.7 ("leave secure cookies alone"): whether `cookie`, received from `url`
    /// over an insecure channel, would replace, delete or shadow a `Secure` cookie of `stored` —
    /// one with the same name, a domain that domain-matches its domain or the other way round,
    /// and a path its path is within. Such a cookie is ignored, so that whoever can answer a
    /// plain-http request cannot change the cookies an https site set.
    static func wouldShadowSecureCookie(_ cookie: Cookie, receivedFrom url: URL, among stored: some Sequence<Cookie>) -> Bool {
        guard !cookie.isSecure, !isSecureChannel(url) else { return false }
        return stored.contains { existing in
            existing.isSecure && existing.name == cookie.name
                && (domainMatches(existing.domain, cookie.domain) || domainMatches(cookie.domain, existing.domain))
                && pathMatches(cookie.path, existing.path)
        }
    }

    /// Why `cookie`, read from a file, is one no server could have set (so the file was edited
    /// or damaged), or nil when it could have been.
    static func problemWithStoredCookie(_ cookie: Cookie, additionalPublicSuffixes: Set<String>) -> String? {
        guard isSendable(name: cookie.name, value: cookie.value) else { return "its name or value cannot be sent" }
        if cookie.name.utf8.count + cookie.value.utf8.count > SetCookieParser.maximumSize {
            return "its name and value exceed \(SetCookieParser.maximumSize) bytes"
        }
        let domain = canonicalDomain(cookie.domain)
        if domain.isEmpty { return "it has no domain" }
        if cookie.path.utf8.count > SetCookieParser.maximumAttributeValueSize || domain.utf8.count > SetCookieParser.maximumAttributeValueSize {
            return "its path or domain exceeds \(SetCookieParser.maximumAttributeValueSize) bytes"
        }
        if !cookie.isHostOnly {
            if isIPAddress(domain) { return "it is for the subdomains of an address" }
            if PublicSuffixes.isPublicSuffix(domain, additional: additionalPublicSuffixes) {
                return "it is for every site under the public suffix \(domain)"
            }
        }
        let name = cookie.name.lowercased()
        if name.hasPrefix("__secure-") && !cookie.isSecure { return "a __Secure- cookie must be Secure" }
        if name.hasPrefix("__host-") && (!cookie.isSecure || !cookie.isHostOnly || cookie.path != "/") {
            return "a __Host- cookie must be Secure, host-only and for Path=/"
        }
        return nil
    }
}
