import Foundation

/// Turns one `Set-Cookie` field into a ``Cookie`` following RFC 6265 §5.2 (parsing) and §5.3
/// (the storage checks), plus the safer rules of RFC 6265bis: `Secure` only from secure
/// channels, `SameSite=None` only with `Secure`, the `__Secure-` and `__Host-` prefixes (in any
/// letter case), attribute values of at most 1024 bytes, and expiry capped at 400 days.
enum SetCookieParser {
    /// The longest name plus value accepted.
    static let maximumSize = 4096
    /// The longest attribute value read; a longer one is ignored (RFC 6265bis §5.6), so that a
    /// hostile server cannot store kilobytes of `Path` or `Domain` with every cookie.
    static let maximumAttributeValueSize = 1024
    /// The furthest expiry accepted, 400 days.
    static let maximumLifetime: TimeInterval = 400 * 86_400

    /// What a `Set-Cookie` field asks for.
    enum Outcome: Equatable {
        /// Store (or replace) this cookie; an expired one deletes the stored cookie.
        case store(Cookie)
        /// Ignore the field, for this reason.
        case ignore(String)
    }

    static func parse(_ field: String, from url: URL, now: Date = Date(), publicSuffixes: Set<String> = []) -> Outcome {
        guard let host = url.host.map(CookieRules.canonicalDomain), !host.isEmpty else {
            return .ignore("the request URL has no host")
        }
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { return .ignore("only http and https may set cookies") }

        // Split on the ";" and "=" code points (RFC 6265 works on octets), not on Characters:
        // a combining mark right after one would hide it inside a grapheme cluster.
        let parts = field.unicodeScalars.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let pair = parts.first ?? ""
        guard let equals = pair.unicodeScalars.firstIndex(of: "=") else { return .ignore("no '=' in the name-value pair") }
        let name = String(pair.unicodeScalars[..<equals]).trimmingCharacters(in: .whitespaces)
        let value = String(pair.unicodeScalars[pair.unicodeScalars.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return .ignore("the cookie has no name") }
        guard CookieRules.isSendable(name: name, value: value) else {
            return .ignore("the name or value contains control characters, spaces in the name, or ';'")
        }
        guard name.utf8.count + value.utf8.count <= maximumSize else {
            return .ignore("the name and value exceed \(maximumSize) bytes")
        }

        var attributes = Attributes()
        for raw in parts.dropFirst() { attributes.read(raw, now: now) }

        var cookie = Cookie(
            name: name, value: value, domain: host, path: attributes.path ?? CookieRules.defaultPath(of: url),
            expiresAt: attributes.expiry(now: now), isSecure: attributes.secure, isHTTPOnly: attributes.httpOnly,
            isHostOnly: true, sameSite: attributes.sameSite, createdAt: now)

        if let domain = attributes.domain {
            if CookieRules.isIPAddress(host) {
                // An address names one host: a Domain attribute may only repeat it, and the
                // cookie stays host-only, so that no name ending in the address gets it.
                guard domain == host else { return .ignore("Domain=\(domain) does not match the address \(host)") }
            } else if PublicSuffixes.isPublicSuffix(domain, additional: publicSuffixes) {
                guard domain == host else {
                    return .ignore("Domain=\(domain) is a public suffix")
                }
            } else {
                guard CookieRules.domainMatches(host, domain) else {
                    return .ignore("Domain=\(domain) does not match the host \(host)")
                }
                cookie.domain = domain
                cookie.isHostOnly = false
            }
        }
        if cookie.isSecure && !CookieRules.isSecureChannel(url) {
            return .ignore("a Secure cookie cannot be set over an insecure channel")
        }
        if cookie.sameSite == SameSite.noRestriction && !cookie.isSecure {
            return .ignore("SameSite=None requires Secure")
        }
        // Prefixes in any letter case (RFC 6265bis §5.7): servers that compare names without
        // case must not take a `__SECURE-` cookie set over http for a `__Secure-` one.
        let lowercaseName = name.lowercased()
        if lowercaseName.hasPrefix("__secure-") && !cookie.isSecure {
            return .ignore("a __Secure- cookie must be Secure")
        }
        if lowercaseName.hasPrefix("__host-") && (!cookie.isSecure || attributes.domain != nil || cookie.path != "/") {
            return .ignore("a __Host- cookie must be Secure, have no Domain and have Path=/")
        }
        return .store(cookie)
    }

    private typealias SameSite = Cookie.SameSite

    /// The attributes after the name-value pair; for each, the last occurrence wins.
    private struct Attributes {
        var expires: Date?
        var maxAge: Int?
        var domain: String?
        var path: String?
        var secure = false
        var httpOnly = false
        var sameSite: SameSite?

        mutating func read(_ raw: String, now: Date) {
            let pieces = raw.unicodeScalars.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                .map(String.init)
            let name = pieces[0].trimmingCharacters(in: .whitespaces).lowercased()
            let value = pieces.count > 1 ? pieces[1].trimmingCharacters(in: .whitespaces) : ""
            guard value.utf8.count <= SetCookieParser.maximumAttributeValueSize else { return }
            switch name {
            case "expires":
                if let date = CookieDateParser.parse(value) { expires = date }
            case "max-age":
                let digits = value.hasPrefix("-") ? value.dropFirst() : Substring(value)
                guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return }
                // Too many digits for Int: as long (or as short) as possible.
                maxAge = Int(value) ?? (value.hasPrefix("-") ? Int.min : Int.max)
            case "domain":
                guard !value.isEmpty else { return }
                domain = CookieRules.canonicalDomain(value)
            case "path":
                path = value.hasPrefix("/") ? value : nil
            case "secure":
                secure = true
            case "httponly":
                httpOnly = true
            case "samesite":
                switch value.lowercased() {
                case "strict": sameSite = .strict
                case "lax": sameSite = .lax
                case "none": sameSite = SameSite.noRestriction
                default: break
                }
            default:
                break
            }
        }

        /// Max-Age wins over Expires; both are capped at 400 days from now.
        func expiry(now: Date) -> Date? {
            let latest = now.addingTimeInterval(SetCookieParser.maximumLifetime)
            if let maxAge {
                if maxAge <= 0 { return Date(timeIntervalSince1970: 0) }
                return min(latest, now.addingTimeInterval(TimeInterval(min(maxAge, Int(SetCookieParser.maximumLifetime)))))
            }
            return expires.map { min($0, latest) }
        }
    }
}
