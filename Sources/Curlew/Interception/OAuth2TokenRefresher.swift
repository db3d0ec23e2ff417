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
///
/// The refresh token and the client secret go to ``tokenURL`` only: the token request follows
/// no redirect (a 3xx fails the refresh), and an answer larger than
/// 1 MiB or slower than ``tokenRequestTimeout`` fails it, so that a
/// broken or hostile token endpoint cannot hold every waiting request or fill memory. Printed
/// or dumped, a refresher shows `***` for its client secret.
public struct OAuth2TokenRefresher: Authenticator {
    /// The largest token endpoint answer read, 1 MiB.
    static let maximumTokenResponseSize = 1 << 20

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
    /// The longest a token request may take in all (or the session's total timeout when that
    /// is shorter): every request waiting for the refresh waits at most this long, also when
    /// the token endpoint trickles its answer too slowly for the idle timeout to end it.
    public let tokenRequestTimeout: Duration

    /// Creates a refresher; see ``OAuth2Authenticator`` for the parameters, and
    /// ``tokenRequestTimeout`` (60 s by default).
    public init(
        tokenURL: URL, clientID: String, clientSecret: String? = nil,
        clientAuthentication: OAuth2ClientAuthentication = .basic, requestedScope: String? = nil,
        requiresInvalidTokenChallenge: Bool = false, tokenRequestTimeout: Duration = .seconds(60)
    ) {
        self.tokenRequestTimeout = tokenRequestTimeout
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
        var request = tokenRequest(refreshToken: refreshToken)
        if let total = session.configuration.timeouts.total, total < tokenRequestTimeout {
            request.options.timeouts.total = total
        }
        // The token endpoint's error answers are read below, whatever the session validates.
        let response = try await session.uninterceptedRequest(request).skipDefaultValidation().response
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
        var options = RequestOptions()
        // Never redirected: a 307 or 308 would carry the refresh token (and a client secret in
        // the body) to wherever the token endpoint points.
        options.redirectPolicy = RedirectPolicy.doNotFollow
        options.maximumBodySize = Self.maximumTokenResponseSize
        options.timeouts.total = tokenRequestTimeout
        return OutgoingRequest(url: tokenURL, method: .post, headerFields: fields, body: .string(body), options: options)
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

extension OAuth2TokenRefresher: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The token URL, client ID and method; the client secret is shown as `***`.
    public var description: String {
        "OAuth2TokenRefresher(tokenURL: \(Redaction.string(tokenURL)), clientID: \(clientID.debugDescription), clientSecret: \(clientSecret == nil ? "none" : Redaction.placeholder), clientAuthentication: \(clientAuthentication))"
    }

    /// The same as ``description``: the client secret is shown as `***`.
    public var debugDescription: String { description }

    /// A mirror whose client secret is `***`, so that `dump` and the debugger do not show it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "tokenURL": Redaction.string(tokenURL), "clientID": clientID,
                "clientSecret": clientSecret == nil ? "none" : Redaction.placeholder,
                "clientAuthentication": clientAuthentication, "requestedScope": requestedScope as Any,
                "requiresInvalidTokenChallenge": requiresInvalidTokenChallenge, "tokenRequestTimeout": tokenRequestTimeout,
            ])
    }
}
