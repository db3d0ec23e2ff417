import Foundation
import HTTPTypes

/// The OAuth2 side of ``OAuth2Authenticator``: applies `Authorization: Bearer` and refreshes
/// tokens at the token endpoint with the `refresh_token` grant of RFC 6749 §6.
///
/// The refresh is a form-encoded POST (`grant_type=refresh_token&refresh_token=…`, plus
/// `scope` when set), with client authentication by HTTP Basic or by body parameters. It goes
/// through ``Session/uninterceptedRequest(_:)``, so it never passes through the authenticator
/// itself. A new refresh token in the answer replaces the old one (rotation); without one,
/// the old one is kept. An error answer (`invalid_grant`, `invalid_client`, …) becomes a
/// ``CurlewError/Kind/authenticationFailed`` error whose message carries the OAuth error code
/// and description.
public struct OAuth2TokenRefresher: Authenticator {
    /// The token endpoint.
    public let tokenURL: URL
    /// The client identifier.
    public let clientID: String
    /// The client secret; nil for a public client.
    public let clientSecret: String?
    /// How the client authenticates to the token endpoint.
    public let clientAuthentication: OAuth2ClientAuthentication
    /// The `scope` sent with a refresh, if any.
    public let requestedScope: String?
    /// Whether a 401 must carry `WWW-Authenticate: Bearer error="invalid_token"` to count as
    /// an expired token.
    public let requiresInvalidTokenChallenge: Bool

    /// Creates a refresher; see ``OAuth2Authenticator`` for the parameters.
    public init(
        tokenURL: URL, clientID: String, clientSecret: String? = nil,
        clientAuthentication: OAuth2ClientAuthentication = .basic, requestedScope: String? = nil,
        requiresInvalidTokenChallenge: Bool = false
    ) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientAuthentication = clientAuthentication
        self.requestedScope = requestedScope
        self.requiresInvalidTokenChallenge = requiresInvalidTokenChallenge
    }

    /// Sets `Authorization: Bearer <access token>`.
    public func apply(_ credential: OAuth2Credential, to request: inout OutgoingRequest) {
        request.headerFields[.authorization] = "Bearer \(credential.accessToken)"
    }

    /// A 401; with ``requiresInvalidTokenChallenge``, only one whose `WWW-Authenticate` has a
    /// Bearer challenge with `error="invalid_token"`.
    public func didRequest(_ request: OutgoingRequest, failDueToAuthenticationError error: CurlewError) -> Bool {
        guard error.status?.code == 401 else { return false }
        guard requiresInvalidTokenChallenge else { return true }
        let fields = error.responseHead?.headerFields[values: .wwwAuthenticate] ?? []
        return fields.contains { field in
            AuthenticationChallenge.parse(field).contains { $0.scheme == "bearer" && $0.parameters["error"] == "invalid_token" }
        }
    }

    /// Exchanges the refresh token for a new credential at ``tokenURL``.
    public func refresh(_ credential: OAuth2Credential, for session: Session) async throws -> OAuth2Credential {
        guard let refreshToken = credential.refreshToken, !refreshToken.isEmpty else {
            throw CurlewError(
                .authenticationFailed, "the OAuth2 credential has no refresh token, so it cannot be refreshed", url: tokenURL)
        }
        // The token endpoint's error answers are read below, whatever the session validates.
        let response = try await session.uninterceptedRequest(tokenRequest(refreshToken: refreshToken))
            .skipDefaultValidation().response
        return try OAuth2TokenResponse.credential(from: response, replacing: credential)
    }

    /// The token request for `refreshToken`.
    func tokenRequest(refreshToken: String) -> OutgoingRequest {
        var form = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let requestedScope { form.append(("scope", requestedScope)) }
        var fields = HTTPFields()
        fields[.contentType] = "application/x-www-form-urlencoded"
        fields[.accept] = "application/json"
        switch (clientAuthentication, clientSecret) {
        case (.basic, let secret?):
            let pair = "\(Self.formEncode(clientID)):\(Self.formEncode(secret))"
            fields[.authorization] = "Basic \(Data(pair.utf8).base64EncodedString())"
        case (.body, let secret?):
            form.append(("client_id", clientID))
            form.append(("client_secret", secret))
        case (_, nil):
            form.append(("client_id", clientID))
        }
        let body = form.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
        return OutgoingRequest(url: tokenURL, method: .post, headerFields: fields, body: .string(body))
    }

    /// `application/x-www-form-urlencoded` encoding of one name or value.
    static func formEncode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "*"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                encoded.append("+")
            default:
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }
}
