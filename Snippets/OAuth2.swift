// OAuth2: one refresh for any number of 401s, and your own authenticator.
// snippet.hide
import Curlew
import Foundation
import HTTPTypes

struct User: Decodable, Sendable { let id: Int; let name: String }
struct APIKey: AuthenticationCredential, Decodable {
    let value: String
    var expiresAt: Date? { nil }
}
let secret = "client-secret"
let saved = OAuth2Credential(accessToken: "access", refreshToken: "refresh", expiresAt: nil)
let key = APIKey(value: "key")
let rotateKeyRequest = OutgoingRequest(url: URL(string: "https://api.example.com/keys/rotate")!, method: .post)

// snippet.show
// snippet.authenticator
let auth = OAuth2Authenticator(
    credential: saved,
    tokenURL: URL(string: "https://auth.example.com/oauth/token")!,
    clientID: "my-app",
    clientSecret: secret,                                // nil for a public client
    clientAuthentication: .basic,                        // or .body (client_secret_post)
    scope: .hosts(["api.example.com"]),
    onRefresh: { credential in print("store", credential.refreshToken ?? "") })
let api = Session(interceptors: [auth, RetryPolicy.default])

let me = try await api.request("https://api.example.com/v2/me").validate().decode(User.self)
// snippet.end

// snippet.custom
struct APIKeyAuthenticator: Authenticator {
    func apply(_ key: APIKey, to request: inout OutgoingRequest) {
        request.headerFields[HTTPField.Name("X-API-Key")!] = key.value
    }
    func refresh(_ key: APIKey, for session: Session) async throws -> APIKey {
        try await session.uninterceptedRequest(rotateKeyRequest).decode(APIKey.self)
    }
}
let keyAuth = AuthenticationInterceptor(authenticator: APIKeyAuthenticator(), credential: key,
                                        scope: .hosts(["api.example.com"]))
// snippet.end

// snippet.hide
print(me, keyAuth)
await api.shutdown()
