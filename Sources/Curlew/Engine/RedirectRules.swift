import Foundation
import HTTPTypes

/// The rules every redirect hop passes, whatever the policy: RFC 9110 method rewriting, the
/// http/https restriction, credential stripping across origins, and the hop limit.
///
/// Unix-domain sockets: a hop within the origin stays on the request's socket (a relative
/// `Location` on an `http+unix` URL resolves to the same socket; a hop of a request with
/// ``RequestOptions/unixSocketPath`` keeps it), a hop to another origin leaves it, and no hop
/// enters an `http+unix` URL from another origin (a server must not steer a client onto one of
/// its machine's local sockets).
enum RedirectRules {
    enum Decision {
        case follow(OutgoingRequest, RedirectHop)
        /// Do not follow: the 3xx response is the result.
        case deliver
        case fail(CurlewError)
    }

    static func isRedirect(_ status: Int) -> Bool {
        status == 301 || status == 302 || status == 303 || status == 307 || status == 308
    }

    static func decide(
        request: OutgoingRequest, head: HTTPResponse, location: String, policy: RedirectPolicy, hopsSoFar: Int
    ) -> Decision {
        let from = request.url
        guard let target = URL(string: location, relativeTo: from)?.absoluteURL else {
            return .fail(CurlewError(.malformedResponse, "the redirect Location '\(Redaction.string(location))' is not a valid URL", url: from, responseHead: head))
        }
        if let error = schemeError(target, from: from, head: head) { return .fail(error) }
        if hopsSoFar >= policy.maximum {
            return .fail(CurlewError(.tooManyRedirects, "stopped after \(policy.maximum) redirects (next: \(Redaction.string(target)))", url: from, responseHead: head))
        }
        var next = request
        next.url = target
        let status = head.status.code
        let becomesGet = (status == 303 && request.method != .head)
            || ((status == 301 || status == 302) && request.method == .post)
        if becomesGet {
            next.method = .get
            next.body = nil
            next.headerFields[.contentType] = nil
            next.headerFields[.contentLength] = nil
            next.headerFields[.transferEncoding] = nil
        } else if let body = request.body, !body.isReplayable {
            return .fail(CurlewError(
                .bodyNotReplayable,
                "a \(status) redirect must resend the body, but it is a one-shot stream; use RequestBody.stream(length:_:) with a factory",
                url: from, responseHead: head))
        }
        if !isSameOrigin(from, target) {
            next.headerFields[.authorization] = nil
            next.headerFields[.cookie] = nil
            next.headerFields[.proxyAuthorization] = nil
            next.options.unixSocketPath = nil
        }
        let hop = RedirectHop(from: from, to: target, response: head)
        guard case .custom(_, let decideHop) = policy.mode else { return .follow(next, hop) }
        switch decideHop(hop, next) {
        case .follow(let chosen):
            if let error = schemeError(chosen.url, from: from, head: head) { return .fail(error) }
            return .follow(chosen, RedirectHop(from: from, to: chosen.url, response: head))
        case .stop:
            return .deliver
        case .reject(let reason):
            return .fail(CurlewError(.redirectRejected, "the redirect policy rejected \(Redaction.string(target)): \(reason)", url: from, responseHead: head))
        }
    }

    private static func schemeError(_ target: URL, from: URL, head: HTTPResponse) -> CurlewError? {
        let scheme = target.scheme?.lowercased() ?? ""
        if scheme == "http+unix" {
            guard isSameOrigin(from, target) else {
                return CurlewError(.unsupportedScheme, "refused a redirect to the Unix socket of '\(Redaction.string(target))': only a request already on that socket may go there", url: from, responseHead: head)
            }
            return nil
        }
        guard scheme == "http" || scheme == "https" else {
            return CurlewError(.unsupportedScheme, "refused a redirect to '\(Redaction.string(target))': only http and https are allowed", url: from, responseHead: head)
        }
        guard let host = target.host, !host.isEmpty else {
            return CurlewError(.malformedResponse, "the redirect target '\(Redaction.string(target))' has no host", url: from, responseHead: head)
        }
        return nil
    }

    /// Same scheme, host and port.
    static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        let scheme = a.scheme?.lowercased()
        guard scheme == b.scheme?.lowercased(), effectivePort(a) == effectivePort(b) else { return false }
        // The host of an http+unix URL is a socket's path, which is case-sensitive.
        if scheme == "http+unix" { return a.host == b.host }
        return a.host?.lowercased() == b.host?.lowercased()
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
