import Foundation

/// What a session's ``SessionConfiguration/hsts`` store and ``SessionConfiguration/httpsOnly``
/// do to a hop before it leaves: the first hop after the interceptors adapted it (and before
/// the cache is asked), each redirect hop after the redirect rules chose it.
enum HTTPSRequirement {
    /// Moves `request` to HTTPS when `hsts` knows its host, then refuses it when `httpsOnly`
    /// and it is still plain HTTP. Requests to a Unix socket (`http+unix`, or
    /// ``RequestOptions/unixSocketPath``) never leave the machine: they are left alone.
    static func apply(to request: inout OutgoingRequest, hsts: HSTSStore?, httpsOnly: Bool) throws(CurlewError) {
        guard request.options.unixSocketPath == nil else { return }
        let facts = HopURLFacts(of: request)
        if facts.isHTTPS || facts.isUnixScheme { return }
        if let hsts, let upgraded = hsts.upgraded(request.url) { request.url = upgraded; return }
        if httpsOnly {
            throw CurlewError(
                .unsupportedScheme,
                "the session is HTTPS-only (httpsOnly) and refused the plain-HTTP request to \(Redaction.string(request.url))",
                url: request.url)
        }
    }
}
