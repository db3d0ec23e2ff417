import Foundation
import NIOCore

/// Authentication, cookie and retry routes: `/basic-auth/{user}/{pass}`, `/bearer`, `/cookies`,
/// `/cookies/set?name=value…`, `/cookies/delete?name…`, `/flaky/{id}`.
enum AccessRoutes {
    /// 200 when `Authorization: Basic` carries exactly `user:pass`, else 401 with a challenge.
    static func basicAuth(
        _ request: ReceivedRequest, segments: [String], allocator: ByteBufferAllocator
    ) -> ResponseScript {
        guard segments.count == 3 else {
            return Router.badRequest(request, "expected /basic-auth/{user}/{password}", allocator)
        }
        let user = segments[1]
        let expected = "\(user):\(segments[2])"
        if let credentials = credentials(request, scheme: "basic"),
            let decoded = Data(base64Encoded: credentials),
            String(decoding: decoded, as: UTF8.self) == expected
        {
            return Reply.json(request, ["authenticated": true, "user": user], allocator: allocator)
        }
        return Reply.json(
            request, status: 401, ["authenticated": false],
            headers: [("WWW-Authenticate", "Basic realm=\"test\"")], allocator: allocator)
    }

    /// 200 when `Authorization: Bearer <token>` is present (any token), else 401.
    static func bearer(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        if let token = credentials(request, scheme: "bearer"), !token.isEmpty {
            return Reply.json(request, ["authenticated": true, "token": token], allocator: allocator)
        }
        return Reply.json(
            request, status: 401, ["authenticated": false],
            headers: [("WWW-Authenticate", "Bearer realm=\"test\"")], allocator: allocator)
    }

    /// `/cookies` echoes the Cookie field as `{"cookies": {…}}`; `/cookies/set` sets cookies and
    /// `/cookies/delete` expires them, both then redirecting (302) to `/cookies`.
    static func cookies(
        _ request: ReceivedRequest, segments: [String], allocator: ByteBufferAllocator
    ) -> ResponseScript {
        switch segments.count > 1 ? segments[1] : "" {
        case "":
            var cookies: [String: String] = [:]
            for field in request.headerLines(named: "Cookie") {
                for pair in field.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    let name = parts[0].trimmingCharacters(in: .whitespaces)
                    guard !name.isEmpty else { continue }
                    cookies[name] = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                }
            }
            return Reply.json(request, ["cookies": cookies], allocator: allocator)
        case "set":
            var headers: [(String, String)] = request.query.compactMap { name, value in
                guard EchoRoutes.isToken(name), isCookieValue(value) else { return nil }
                return ("Set-Cookie", "\(name)=\(value); Path=/")
            }
            headers.append(("Location", "/cookies"))
            return Reply.empty(request, status: 302, headers: headers, allocator: allocator)
        case "delete":
            var headers: [(String, String)] = request.query.compactMap { name, _ in
                guard EchoRoutes.isToken(name) else { return nil }
                return ("Set-Cookie", "\(name)=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/")
            }
            headers.append(("Location", "/cookies"))
            return Reply.empty(request, status: 302, headers: headers, allocator: allocator)
        default:
            return Router.badRequest(request, "expected /cookies, /cookies/set or /cookies/delete", allocator)
        }
    }

    /// `/flaky/{id}?failures=N&status=S&retry_after=T`: the first N requests to this path fail
    /// with status S (default 503, with `Retry-After: T` when given); later ones echo. Both carry
    /// `"attempt"`, the number of requests to this path so far. Use a fresh id per test.
    static func flaky(
        _ request: ReceivedRequest, segments: [String], state: ServerState, allocator: ByteBufferAllocator
    ) -> ResponseScript {
        guard segments.count == 2 else {
            return Router.badRequest(request, "expected /flaky/{id}", allocator)
        }
        let attempt = state.requestCount(path: request.path)
        let failures = request.queryInt("failures", default: 1)
        guard attempt > failures else {
            let status = request.queryInt("status", default: 503)
            var headers: [(String, String)] = []
            if let retryAfter = request.queryValue("retry_after"), Int(retryAfter) != nil {
                headers.append(("Retry-After", retryAfter))
            }
            return Reply.json(
                request, status: (100...999).contains(status) ? status : 503,
                ["attempt": attempt, "failing": true], headers: headers, allocator: allocator)
        }
        var object = EchoRoutes.echoObject(request)
        object["attempt"] = attempt
        return Reply.json(request, object, allocator: allocator)
    }

    /// The credentials after `scheme` in the Authorization field, if it uses that scheme.
    private static func credentials(_ request: ReceivedRequest, scheme: String) -> String? {
        guard let field = request.header("Authorization") else { return nil }
        let parts = field.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == scheme else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// Whether `value` may appear as a cookie value without quoting (RFC 6265 cookie-octet).
    private static func isCookieValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { byte in
            byte == 0x21 || (0x23...0x2B).contains(byte) || (0x2D...0x3A).contains(byte)
                || (0x3C...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
        }
    }
}
