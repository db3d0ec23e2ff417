import Foundation
import HTTPTypes

/// What a request tells the server about who sends it, gathered from every way Curlew attaches
/// it, for the request's ``CacheKey``. The cache has to gather it itself: most of it is added
/// by libcurl or the transfer, after the cache, so the request's header fields do not show it.
///
/// - **Credentials** (RFC 9111 §3.5 applies to storing): `Authorization` — the request's own as
///   the adapters left it (an ``AuthenticationInterceptor`` or ``OAuth2Authenticator`` adds it
///   there), else the session's default field; the request's ``RequestOptions/httpCredential``
///   (`authenticate(…)` sets it), else the session's ``HTTPCredentialStore`` entry for the URL's
///   origin; the URL's user information; and for https the client certificate of the host's
///   trust policy.
/// - **Cookies**: the request's `Cookie` field (else the session's default one), and what the
///   request's cookie storage (its own, else the session's) sends to the URL. They partition,
///   but do not restrict storing: RFC 9111 leaves responses to requests with cookies cacheable.
///
/// - **Fields named like secrets** (`X-Api-Key`, `X-Auth-Token`, `X-Session-Id`: the names
///   ``Redaction`` prints as `***`) and **secret query values** (`access_token`, RFC 6750 §2.3)
///   count as credentials too.
///
/// `Proxy-Authorization` and proxy credentials speak to the proxy, not the origin, and are not
/// counted. A credential in a field whose name says nothing of it (`X-Tenant: …`) cannot be told
/// from any other field: see the README's cache section.
struct CacheIdentity {
    /// Each part found, as a tag, a 4-byte length and the bytes; empty for an anonymous request.
    private(set) var material: [UInt8] = []
    /// Whether a credential (not only a cookie) was found.
    private(set) var isCredentialed = false

    /// Whether the request carries nothing identifying.
    var isAnonymous: Bool { material.isEmpty }

    init(request: OutgoingRequest, session: SessionTransferSettings, trust: TrustConfiguration) {
        let fields = request.headerFields
        let authorization = fields[values: .authorization]
        add("A", authorization.isEmpty ? session.defaultHeaders[values: .authorization] : authorization, credential: true)
        if let credential = request.options.httpCredential
            ?? (session.credentials.isEmpty ? nil : session.credentials.credential(for: request.url))
        {
            add("P", [credential.method.description, credential.username, credential.password], credential: true)
        }
        if HopURLFacts(of: request).hasUserInfo, let userInfo = Self.userInfo(of: request.urlText) {
            add("U", [userInfo], credential: true)
        }
        if let certificate = Self.clientCertificate(for: request, trust: trust) {
            add("T", certificate.identityParts, credential: true)
        }
        // Fields named like secrets (`X-Api-Key`, `X-Auth-Token`, …: `Redaction.isSecretHeader`),
        // the request's and the session's defaults, and secret query values (`access_token`).
        add("H", Self.secretNamedFields(fields) + Self.secretNamedFields(session.defaultHeaders), credential: true)
        if Redaction.hasSecretQueryValue(request.urlText) {
            add("Q", [request.urlText], credential: true)
        }
        let cookies = fields[values: .cookie]
        add("C", cookies.isEmpty ? session.defaultHeaders[values: .cookie] : cookies, credential: false)
        // The storage the request's cookies come from: its own (``RequestOptions/cookieStorage``),
        // else the session's.
        let storage = request.options.cookieStorage.map(\.storage) ?? (session.storesCookies ? session.cookieStorage : nil)
        if let jar = storage?.cookieHeader(for: request.url, siteForCookies: request.url, method: request.method) {
            add("J", [jar], credential: false)
        }
    }

    private mutating func add(_ tag: Unicode.Scalar, _ values: [String], credential: Bool) {
        guard !values.isEmpty else { return }
        material.append(UInt8(ascii: tag))
        withUnsafeBytes(of: UInt32(values.count).littleEndian) { material.append(contentsOf: $0) }
        for value in values {
            withUnsafeBytes(of: UInt32(value.utf8.count).littleEndian) { material.append(contentsOf: $0) }
            material.append(contentsOf: value.utf8)
        }
        if credential { isCredentialed = true }
    }

    /// The fields of `fields` that are secrets by their name, beside `Authorization` and
    /// `Cookie` (counted on their own), as `name: value` lines; empty for nearly every request.
    private static func secretNamedFields(_ fields: HTTPFields) -> [String] {
        var found: [String] = []
        for field in fields where !countedApart.contains(field.name) && Redaction.isSecretHeader(field.name) {
            found.append(field.name.canonicalName + ": " + field.value)
        }
        return found
    }

    /// The fields counted on their own, or (for the proxy's) not at all.
    private static let countedApart: Set<HTTPField.Name> = [.authorization, .cookie, .proxyAuthorization, .setCookie]

    /// The user information of a URL's text (`user:password`), or nil.
    static func userInfo(of text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes in
            guard let layout = URLTextLayout(bytes), layout.hasUserInfo, let authority = layout.authority else { return nil }
            return String(decoding: bytes[authority.lowerBound..<(layout.hostStart - 1)], as: UTF8.self)
        }
    }

    /// The client certificate an https request presents, if its trust policy has one. Sessions
    /// without client certificates (nearly all) do not parse the URL.
    private static func clientCertificate(for request: OutgoingRequest, trust: TrustConfiguration) -> ClientCertificate? {
        guard trust.defaultPolicy.clientCertificate != nil || trust.hosts.values.contains(where: { $0.clientCertificate != nil }),
            request.url.scheme?.lowercased() == "https", let host = request.url.host
        else { return nil }
        return trust.policy(forHost: host).policy.clientCertificate
    }
}

extension ClientCertificate {
    /// Everything that tells one client certificate from another, for ``CacheIdentity``.
    fileprivate var identityParts: [String] {
        func text(_ source: Source?) -> String {
            switch source {
            case .file(let path): "file:" + path
            case .data(let data): "data:" + data.base64EncodedString()
            case nil: "-"
            }
        }
        return [format.rawValue, text(certificate), text(key), keyFormat.rawValue, passphrase ?? "-"]
    }
}
