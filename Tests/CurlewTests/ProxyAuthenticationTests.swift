@testable import Curlew
import Foundation
import Testing
import TestServer

/// Proxy authentication by challenge (`CURLOPT_PROXYAUTH`): Digest checked for real by
/// ``AuthenticatingProxy``, NTLM's messages on the wire.
@Suite("Proxy authentication: Digest and NTLM answers to a 407")
struct ProxyAuthenticationTests {
    static let password = ProxyTesting.password

    private func proxied(_ port: Int, password: String = Self.password, _ method: HTTPAuthenticationMethod) -> Session {
        ProxyTesting.session(
            .explicit(.http, host: "127.0.0.1", port: port, username: "curlew", password: password, authentication: method))
    }

    private static func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func aDigestProxyGetsTheAnswerToItsChallengeAndNeverThePassword() async throws {
        let proxy = try await AuthenticatingProxy.start(.digest, user: "curlew", password: Self.password)
        let session = proxied(proxy.port, .digest)
        let url = try #require(URL(string: "http://origin.test:8080/report?x=1"))
        let reply = try Self.json(try await session.request(url).validate().data())
        #expect(reply["proxied"] as? Bool == true)
        #expect(reply["scheme"] as? String == "Digest")
        // A body goes whole after the challenge, on a new request and on the reused connection.
        for round in 0..<2 {
            let body = Data(repeating: UInt8(ascii: "b"), count: 3000 + round)
            let posted = try Self.json(try await session.upload(.data(body), to: url).validate().data())
            #expect(posted["bodyLength"] as? Int == body.count, "round \(round): \(posted)")
        }
        let received = proxy.received
        #expect(received.first?.proxyAuthorization == nil, "the first request goes without credentials")
        #expect(received.first?.target == url.absoluteString)
        let answers = received.compactMap(\.proxyAuthorization)
        #expect(!answers.isEmpty && answers.allSatisfy { $0.hasPrefix("Digest ") && $0.contains("username=\"curlew\"") })
        #expect(received.allSatisfy { ($0.proxyAuthorization ?? "").contains(Self.password) == false && $0.authorization == nil })
        let command = session.request(url).cURLDescription()
        #expect(command.contains("-U 'curlew:***' --proxy-digest"), "\(command)")
        #expect(!command.contains(Self.password))
        await session.shutdown()

        let wrong = proxied(proxy.port, password: "not-" + Self.password, .digest)
        let error = await ProxyTesting.expectProxyFailure(wrong.request(url), naming: "127.0.0.1:\(proxy.port)")
        #expect(error?.description.contains("407") == true)
        #expect(error?.description.contains("not-" + Self.password) == false)
        await wrong.shutdown()

        // Basic (the default) sends no answer to a Digest challenge: the 407 is the failure.
        let basic = proxied(proxy.port, .basic)
        await ProxyTesting.expectProxyFailure(basic.request(url), naming: "127.0.0.1:\(proxy.port)")
        await basic.shutdown()
        await proxy.stop()
    }

    @Test(.enabled(if: HTTPAuthenticationMethod.ntlm.isSupported, "libcurl has no NTLM"))
    func anNTLMProxySeesItsMessagesOnTheWireAndNeverThePassword() async throws {
        let proxy = try await AuthenticatingProxy.start(.ntlm, user: "curlew", password: Self.password)
        let session = proxied(proxy.port, .ntlm)
        let url = try #require(URL(string: "http://origin.test:8080/ntlm"))
        let reply = try Self.json(try await session.request(url).validate().data())
        #expect(reply["scheme"] as? String == "NTLM")
        // With NTLM alone libcurl starts with Type 1 (no secret in it), then answers Type 2 with Type 3.
        let fields = proxy.received.map(\.proxyAuthorization)
        #expect(fields.count == 2, "\(fields)")
        let messages = fields.compactMap { $0 }.compactMap { field in
            field.hasPrefix("NTLM ") ? Data(base64Encoded: String(field.dropFirst(5))) : nil
        }
        #expect(messages.count == 2)
        for (message, type) in zip(messages, [UInt8(1), 3]) {
            #expect(message.prefix(8) == Data("NTLMSSP\0".utf8))
            #expect(message.count > 8 && message[message.startIndex + 8] == type)
            #expect(message.range(of: Data(Self.password.utf8)) == nil)
            #expect(message.range(of: Data(Self.password.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })) == nil)
        }
        #expect(messages.last.flatMap(NTLMMessages.userName(inType3:)) == "curlew")
        #expect(session.request(url).cURLDescription().contains("--proxy-ntlm"))
        await session.shutdown()
        await proxy.stop()
    }

    @Test func oneProxysDigestStateNeverReachesAnotherProxyOnAPooledHandle() async throws {
        let first = try await AuthenticatingProxy.start(.digest, user: "curlew", password: Self.password)
        let second = try await AuthenticatingProxy.start(.digest, user: "curlew", password: Self.password)
        let session = ProxyTesting.session(.direct)
        let url = try #require(URL(string: "http://origin.test:8080/digest-state"))
        for proxy in [first, second] {
            var options = RequestOptions()
            options.proxy = .explicit(
                .http, host: "127.0.0.1", port: proxy.port, username: "curlew", password: Self.password, authentication: .digest)
            _ = try await session.request(url, options: options).validate().data()
        }
        // The second proxy's first request carries nothing of the first proxy's nonce.
        #expect(second.received.first?.proxyAuthorization == nil, "\(second.received.map(\.proxyAuthorization))")
        await session.shutdown()
        await first.stop()
        await second.stop()
    }

    @Test func aChallengeMethodForASOCKSProxyIsRefusedBeforeAnyConnection() async throws {
        let server = try await Fixtures.server()
        let socks = try await SOCKSRecordingProxy.start()
        for method in [HTTPAuthenticationMethod.digest, .ntlm, .any] {
            let session = ProxyTesting.session(
                .explicit(.socks5, host: "127.0.0.1", port: socks.port, username: "u", password: Self.password, authentication: method))
            do {
                _ = try await session.request(server.url("/get")).data()
                Issue.record("\(method) was taken for a SOCKS proxy")
            } catch {
                #expect(error.kind == .invalidRequest, "\(error)")
                #expect(!error.description.contains(Self.password))
            }
            await session.shutdown()
        }
        #expect(socks.connections == 0)
        await socks.stop()
    }
}
