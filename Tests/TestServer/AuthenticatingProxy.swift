import Foundation
import Synchronization

/// An HTTP forward proxy for proxy-authentication tests that answers `407` challenges by
/// Digest (RFC 7616, checked for real: nonces issued here, the response recomputed from the
/// password) or NTLM (the message exchange on the wire: Type 1, a Type 2 challenge, Type 3,
/// which is recorded but whose hashes are not checked), and answers an authenticated request
/// itself with JSON `{"proxied": true, "target", "scheme", "nc"}` instead of forwarding it.
/// Every request's `Proxy-Authorization` (or its absence) and target are recorded.
public final class AuthenticatingProxy: Sendable {
    /// The scheme the proxy asks for.
    public enum Scheme: Sendable { case digest, ntlm }

    /// One request the proxy received.
    public struct Received: Sendable {
        /// The request target as sent: absolute-form (`http://host:port/path`) for a proxy.
        public let target: String
        public let method: String
        /// The `Proxy-Authorization` field; nil when absent.
        public let proxyAuthorization: String?
        /// The `Authorization` field; nil when absent.
        public let authorization: String?
        /// The body's length.
        public let bodyLength: Int
    }

    private let server: ScriptedHTTPServer
    private let log: Log

    /// The port the proxy listens on (127.0.0.1).
    public var port: Int { server.port }

    /// Every request so far, in order.
    public var received: [Received] { log.state.withLock { $0.received } }

    private init(server: ScriptedHTTPServer, log: Log) {
        self.server = server
        self.log = log
    }

    final class Log: Sendable {
        struct State {
            var received: [Received] = []
        }
        let state = Mutex(State())
        let nonces = DigestNonceStore()
    }

    static let realm = "curlew-proxy@example.org"

    /// Starts a proxy that asks for `scheme` and takes `user` with `password`.
    public static func start(_ scheme: Scheme, user: String, password: String) async throws -> AuthenticatingProxy {
        let log = Log()
        let server = try await ScriptedHTTPServer.start { request in
            let field = request.header("Proxy-Authorization")
            log.state.withLock {
                $0.received.append(
                    Received(
                        target: request.rawTarget, method: request.method, proxyAuthorization: field,
                        authorization: request.header("Authorization"), bodyLength: request.body.count))
            }
            switch scheme {
            case .digest: return digest(request, field: field, user: user, password: password, nonces: log.nonces)
            case .ntlm: return ntlm(request, field: field, user: user)
            }
        }
        return AuthenticatingProxy(server: server, log: log)
    }

    /// Stops the proxy.
    public func stop() async {
        await server.shutdown()
    }

    private static func proxied(_ request: ScriptedRequest, scheme: String, nc: Int) -> ScriptedResponse {
        .json(["proxied": true, "target": request.rawTarget, "scheme": scheme, "nc": nc, "bodyLength": request.body.count])
    }

    private static func digest(
        _ request: ScriptedRequest, field: String?, user: String, password: String, nonces: DigestNonceStore
    ) -> ScriptedResponse {
        func challenge(_ reason: String) -> ScriptedResponse {
            let (nonce, opaque) = nonces.issue(path: "proxy", stale: false)
            let value = "Digest realm=\"\(realm)\", qop=\"auth\", algorithm=MD5, nonce=\"\(nonce)\", opaque=\"\(opaque)\""
            return .json(["proxied": false, "reason": reason], status: 407, headers: [("Proxy-Authenticate", value)])
        }
        guard let field, field.lowercased().hasPrefix("digest ") else { return challenge("no Digest Proxy-Authorization") }
        let parameters = DigestAuthRoutes.parseParameters(String(field.dropFirst(7)))
        guard parameters["username"] == user, parameters["realm"] == realm, parameters["qop"] == "auth",
            let uri = parameters["uri"], let nc = parameters["nc"], let count = Int(nc, radix: 16),
            let cnonce = parameters["cnonce"], let nonce = parameters["nonce"], let record = nonces.record(nonce),
            parameters["opaque"] == record.opaque, count > record.lastCount
        else { return challenge("malformed or replayed Digest field") }
        // The uri is the request target (absolute-form through a proxy) or its origin-form.
        let origin = URL(string: request.rawTarget).map { ($0.path.isEmpty ? "/" : $0.path) + ($0.query.map { "?" + $0 } ?? "") }
        guard uri == request.rawTarget || uri == origin else { return challenge("uri \(uri) is not the request's target") }
        let hash = DigestHash.md5
        let ha1 = hash.hex("\(user):\(realm):\(password)")
        let ha2 = hash.hex("\(request.method):\(uri)")
        let expected = hash.hex("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
        guard parameters["response"]?.lowercased() == expected else { return challenge("wrong response") }
        nonces.use(nonce, count: count)
        return proxied(request, scheme: "Digest", nc: count)
    }

    /// NTLM's three messages: Type 1 gets a Type 2 challenge, a Type 3 naming `user` is taken.
    private static func ntlm(_ request: ScriptedRequest, field: String?, user: String) -> ScriptedResponse {
        let bare = ScriptedResponse.json(["proxied": false], status: 407, headers: [("Proxy-Authenticate", "NTLM")])
        guard let field, field.hasPrefix("NTLM "), let message = Data(base64Encoded: String(field.dropFirst(5))),
            message.count >= 12, message.prefix(8) == Data("NTLMSSP\0".utf8)
        else { return bare }
        switch message[message.startIndex + 8] {
        case 1:
            let challenge = NTLMMessages.type2(challenge: [1, 2, 3, 4, 5, 6, 7, 8])
            return .json(
                ["proxied": false], status: 407,
                headers: [("Proxy-Authenticate", "NTLM " + challenge.base64EncodedString())])
        case 3:
            guard NTLMMessages.userName(inType3: message) == user else { return bare }
            return proxied(request, scheme: "NTLM", nc: 0)
        default:
            return bare
        }
    }
}

/// The parts of NTLM messages (MS-NLMP) the ``AuthenticatingProxy`` writes and reads.
public enum NTLMMessages {
    /// A Type 2 (CHALLENGE) message: no target name, no target info, Unicode and NTLM flags.
    static func type2(challenge: [UInt8]) -> Data {
        var bytes = Array("NTLMSSP\0".utf8)
        bytes += le32(2)
        bytes += [0, 0, 0, 0] + le32(48)  // target name: empty, at offset 48
        bytes += le32(0x0000_0001 | 0x0000_0200 | 0x0008_0000)  // UNICODE, NTLM, NTLM2 key
        bytes += challenge
        bytes += [UInt8](repeating: 0, count: 8)  // reserved
        bytes += [0, 0, 0, 0] + le32(48)  // target info: empty
        return Data(bytes)
    }

    /// The user name of a Type 3 (AUTHENTICATE) message, from its security buffer (UTF-16LE
    /// when the Unicode flag is set, else OEM bytes).
    public static func userName(inType3 message: Data) -> String? {
        let bytes = [UInt8](message)
        guard bytes.count >= 64 else { return nil }
        let length = Int(bytes[36]) | Int(bytes[37]) << 8
        let offset = Int(bytes[40]) | Int(bytes[41]) << 8 | Int(bytes[42]) << 16 | Int(bytes[43]) << 24
        guard offset + length <= bytes.count else { return nil }
        let field = Array(bytes[offset..<(offset + length)])
        let flags = Int(bytes[60]) | Int(bytes[61]) << 8 | Int(bytes[62]) << 16 | Int(bytes[63]) << 24
        if flags & 1 != 0 {
            let units = stride(from: 0, to: field.count - 1, by: 2).map { UInt16(field[$0]) | UInt16(field[$0 + 1]) << 8 }
            return String(decoding: units, as: UTF16.self)
        }
        return String(decoding: field, as: UTF8.self)
    }

    private static func le32(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }
}
