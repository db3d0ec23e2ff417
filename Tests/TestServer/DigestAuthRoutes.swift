import Foundation
import NIOCore

/// Digest authentication (RFC 7616) checked for real: the server issues nonces and opaque
/// values, and recomputes every response from the expected user's password.
///
/// `/digest-auth/{qop}/{user}/{password}/{algorithm}` (qop: `auth`; algorithm: `MD5` or
/// `SHA-256`, default `MD5`) answers 200 with `{"authenticated": true, "user", "scheme",
/// "algorithm", "nc", "bodyLength"}` when the `Authorization` field holds a correct Digest
/// response, else 401 with a fresh challenge and `{"authenticated": false, "reason"}`. A
/// response is correct when its username, realm, uri (the request target as sent), algorithm,
/// qop and opaque are the expected ones, its nonce was issued here and not expired, its nonce
/// count is higher than the last one used with that nonce, and its `response` equals
/// `H(H(user:realm:password):nonce:nc:cnonce:qop:H(method:uri))`.
///
/// Query options:
/// - `stale_once=1`: the first nonce of this path has expired by the time it is used: a
///   correct response with it gets 401 with `stale=true` and a new nonce.
/// - `also_basic=1`: the challenge offers Basic too, and a correct Basic field is accepted
///   (reported as `"scheme": "Basic"`).
/// - `redirect_to=URL`: a correct request gets a 302 to URL instead of 200.
///
/// Every `Authorization` field that arrives (or its absence) is kept by path; see
/// ``TestServer/authorizations(path:)``.
public enum DigestAuthRoutes {
    static let realm = "curlew-test@example.org"

    static func respond(
        _ request: ReceivedRequest, segments: [String], state: ServerState, allocator: ByteBufferAllocator
    ) -> ResponseScript {
        guard segments.count == 4 || segments.count == 5, segments[1] == "auth",
            let hash = segments.count == 5 ? DigestHash(rawValue: segments[4].uppercased()) : .md5
        else {
            return Router.badRequest(request, "expected /digest-auth/auth/{user}/{password}[/MD5|SHA-256]", allocator)
        }
        let nonces = state.digestNonces
        let authorization = request.header("Authorization")
        nonces.noteAuthorization(authorization, path: request.path)
        let user = segments[2]
        let password = segments[3]
        let alsoBasic = request.queryValue("also_basic") == "1"
        let expected = Expected(user: user, password: password, hash: hash, method: request.method, uri: request.rawTarget)

        func challenge(_ reason: String, stale isStale: Bool = false) -> ResponseScript {
            let stale = request.queryValue("stale_once") == "1" && nonces.authorizations(path: request.path).count == 1
            let (nonce, opaque) = nonces.issue(path: request.path, stale: stale)
            var digest = "Digest realm=\"\(realm)\", qop=\"auth\", algorithm=\(hash.rawValue), nonce=\"\(nonce)\", opaque=\"\(opaque)\""
            if isStale { digest += ", stale=true" }
            var headers = [("WWW-Authenticate", digest)]
            if alsoBasic { headers.append(("WWW-Authenticate", "Basic realm=\"\(realm)\"")) }
            return Reply.json(request, status: 401, ["authenticated": false, "reason": reason], headers: headers, allocator: allocator)
        }

        guard let authorization else { return challenge("no Authorization field") }
        var scheme = "Digest"
        var count = 0
        if alsoBasic, authorization.lowercased().hasPrefix("basic ") {
            let token = authorization.dropFirst(6).trimmingCharacters(in: .whitespaces)
            guard let decoded = Data(base64Encoded: token), String(decoding: decoded, as: UTF8.self) == "\(user):\(password)" else {
                return challenge("wrong Basic credentials")
            }
            scheme = "Basic"
        } else {
            switch verify(authorization, expected: expected, nonces: nonces, path: request.path) {
            case .failure(let reason): return challenge(reason.text, stale: reason.isStale)
            case .success(let nonceCount): count = nonceCount
            }
        }
        if let target = request.queryValue("redirect_to") {
            return Reply.empty(request, status: 302, headers: [("Location", target)], allocator: allocator)
        }
        return Reply.json(
            request,
            ["authenticated": true, "user": user, "scheme": scheme, "algorithm": hash.rawValue, "nc": count, "bodyLength": request.bodyLength],
            allocator: allocator)
    }

    struct Expected {
        var user: String
        var password: String
        var hash: DigestHash
        var method: String
        var uri: String
    }

    struct Rejection: Error {
        var text: String
        var isStale = false
    }

    /// Checks a Digest `Authorization` field; returns its nonce count.
    static func verify(
        _ field: String, expected: Expected, nonces: DigestNonceStore, path: String
    ) -> Result<Int, Rejection> {
        guard field.lowercased().hasPrefix("digest ") else { return .failure(Rejection(text: "not a Digest field")) }
        let parameters = parseParameters(String(field.dropFirst(7)))
        func value(_ name: String) -> String? { parameters[name] }
        guard let username = value("username"), username == expected.user else {
            return .failure(Rejection(text: "unexpected username"))
        }
        guard value("realm") == realm else { return .failure(Rejection(text: "wrong realm")) }
        guard let uri = value("uri"), uri == expected.uri else {
            return .failure(Rejection(text: "uri \(value("uri") ?? "nil") is not the request target \(expected.uri)"))
        }
        guard (value("algorithm") ?? "MD5").uppercased() == expected.hash.rawValue else {
            return .failure(Rejection(text: "algorithm \(value("algorithm") ?? "nil") is not \(expected.hash.rawValue)"))
        }
        guard value("qop") == "auth" else { return .failure(Rejection(text: "qop must be auth")) }
        guard let nc = value("nc"), nc.count == 8, let count = Int(nc, radix: 16), count > 0 else {
            return .failure(Rejection(text: "nc must be 8 hex digits"))
        }
        guard let cnonce = value("cnonce"), !cnonce.isEmpty else { return .failure(Rejection(text: "no cnonce")) }
        guard let nonce = value("nonce"), let record = nonces.record(nonce), record.path == path else {
            return .failure(Rejection(text: "unknown nonce"))
        }
        guard value("opaque") == record.opaque else { return .failure(Rejection(text: "wrong opaque")) }
        guard count > record.lastCount else { return .failure(Rejection(text: "nonce count \(count) was already used")) }
        let hash = expected.hash
        let ha1 = hash.hex("\(expected.user):\(realm):\(expected.password)")
        let ha2 = hash.hex("\(expected.method):\(uri)")
        let response = hash.hex("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
        guard value("response")?.lowercased() == response else { return .failure(Rejection(text: "wrong response")) }
        // Only a correct response learns that its nonce is stale (RFC 7616 §3.3).
        guard !record.isStale else { return .failure(Rejection(text: "stale nonce", isStale: true)) }
        nonces.use(nonce, count: count)
        return .success(count)
    }

    /// The auth-params of a credentials value: `name=token` or `name="quoted \" string"`,
    /// separated by commas; names lowercase.
    public static func parseParameters(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var index = text.startIndex
        func skip(_ characters: Set<Character>) {
            while index < text.endIndex, characters.contains(text[index]) { index = text.index(after: index) }
        }
        while index < text.endIndex {
            skip([" ", "\t", ","])
            let nameStart = index
            while index < text.endIndex, text[index] != "=", text[index] != "," { index = text.index(after: index) }
            let name = text[nameStart..<index].trimmingCharacters(in: .whitespaces).lowercased()
            guard index < text.endIndex, text[index] == "=" else { continue }
            index = text.index(after: index)
            skip([" ", "\t"])
            var value = ""
            if index < text.endIndex, text[index] == "\"" {
                index = text.index(after: index)
                while index < text.endIndex, text[index] != "\"" {
                    if text[index] == "\\" { index = text.index(after: index) }
                    if index < text.endIndex { value.append(text[index]); index = text.index(after: index) }
                }
                if index < text.endIndex { index = text.index(after: index) }
            } else {
                let valueStart = index
                while index < text.endIndex, text[index] != "," { index = text.index(after: index) }
                value = text[valueStart..<index].trimmingCharacters(in: .whitespaces)
            }
            if !name.isEmpty { result[name] = value }
        }
        return result
    }
}
