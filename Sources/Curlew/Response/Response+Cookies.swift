import Foundation
import HTTPTypes

extension Response {
    /// The cookies this response set (its `Set-Cookie` fields), parsed by RFC 6265 for its
    /// URL; fields a cookie store would ignore (a public-suffix domain, a bad prefix, …) are
    /// left out. An expired cookie — a server deleting one — is included, with its expiry.
    ///
    /// Only the final response's fields: cookies set by redirect hops went to the session's
    /// ``SessionConfiguration/cookieStorage`` (when it has one) as each hop arrived.
    public var cookies: [Cookie] {
        let fields = head.headerFields[values: .setCookie]
        return fields.isEmpty ? [] : SetCookieParser.cookies(from: fields, for: url, now: Date(), publicSuffixes: [])
    }
}
