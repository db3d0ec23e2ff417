import CCurlShims

/// How a request authenticates with a user name and password: the HTTP authentication
/// scheme that libcurl uses (`CURLOPT_HTTPAUTH`).
///
/// ```swift
/// let body = try await session.request("https://api.example.com/report")
///     .authenticate(username: "ann", password: secret, method: .digest)
///     .validate()
///     .data()
/// ```
///
/// ``basic`` sends the credentials with the first request. Every other method sends the first
/// request without them and answers the server's `WWW-Authenticate` challenge, as Alamofire and
/// URLSession do; ``any`` (the default) lets libcurl pick the safest scheme the challenge offers.
///
/// ``ntlm`` and ``negotiate`` exist only when the installed libcurl was built with them: check
/// ``isSupported`` (or ``supported``); a request that asks for one that is missing fails with
/// ``CurlewError/Kind/invalidRequest``.
public struct HTTPAuthenticationMethod: Sendable, Hashable, CustomStringConvertible {
    private enum Scheme: Sendable, Hashable {
        case basic, digest, any, anySafe, ntlm, negotiate
    }

    private let scheme: Scheme

    private init(_ scheme: Scheme) { self.scheme = scheme }

    /// Basic (RFC 7617): the user name and password, base64-encoded, sent with the first
    /// request. Anyone who can read the request can read the password: use it over https only.
    public static let basic = HTTPAuthenticationMethod(.basic)
    /// Digest (RFC 7616, MD5 or SHA-256, `qop=auth`): the password never crosses the wire. The
    /// first request goes without credentials; the server's challenge is answered.
    public static let digest = HTTPAuthenticationMethod(.digest)
    /// Whatever the server's challenge offers, the safest first (libcurl's `CURLAUTH_ANY`):
    /// Negotiate, NTLM and Digest before Basic. The first request goes without credentials.
    public static let any = HTTPAuthenticationMethod(.any)
    /// Like ``any`` without Basic (libcurl's `CURLAUTH_ANYSAFE`): the password is never sent
    /// in the clear; a server that offers only Basic gets no credentials.
    public static let anySafe = HTTPAuthenticationMethod(.anySafe)
    /// NTLM, where the installed libcurl has it (see ``isSupported``).
    public static let ntlm = HTTPAuthenticationMethod(.ntlm)
    /// Negotiate (SPNEGO, RFC 4559), where the installed libcurl has GSS-API (see ``isSupported``).
    /// The password is not used: Kerberos uses the process's ticket cache.
    public static let negotiate = HTTPAuthenticationMethod(.negotiate)

    /// Every method, supported or not.
    public static let allCases: [HTTPAuthenticationMethod] = [.basic, .digest, .any, .anySafe, .ntlm, .negotiate]

    /// The methods the installed libcurl can use.
    public static var supported: [HTTPAuthenticationMethod] {
        allCases.filter(\.isSupported)
    }

    /// Whether the installed libcurl can use this method, from its feature bits
    /// (`curl_version_info`): NTLM needs `CURL_VERSION_NTLM`, Negotiate `CURL_VERSION_SPNEGO`.
    public var isSupported: Bool {
        switch scheme {
        case .basic, .digest, .any, .anySafe: true
        case .ntlm: Self.features & curlew_CURL_VERSION_NTLM != 0
        case .negotiate: Self.features & curlew_CURL_VERSION_SPNEGO != 0
        }
    }

    /// The name, as in `WWW-Authenticate` where there is one.
    public var description: String {
        switch scheme {
        case .basic: "Basic"
        case .digest: "Digest"
        case .any: "any"
        case .anySafe: "anySafe"
        case .ntlm: "NTLM"
        case .negotiate: "Negotiate"
        }
    }

    /// Whether the credentials go with the first request, before any challenge.
    var isPreemptive: Bool { scheme == .basic }

    /// Whether a user name with ':' is refused: Basic cannot carry it (RFC 7617 §2), and with
    /// ``any`` the server may pick Basic.
    var forbidsColonInUsername: Bool { scheme == .basic || scheme == .any }

    /// The `CURLOPT_HTTPAUTH` bits.
    var curlMask: Int {
        let bits: UInt = switch scheme {
        case .basic: curlew_CURLAUTH_BASIC
        case .digest: curlew_CURLAUTH_DIGEST
        case .any: curlew_CURLAUTH_ANY
        case .anySafe: curlew_CURLAUTH_ANYSAFE
        case .ntlm: curlew_CURLAUTH_NTLM
        case .negotiate: curlew_CURLAUTH_NEGOTIATE
        }
        return Int(bitPattern: bits)
    }

    /// The curl command-line option for this method. `--anyauth` also stands for ``anySafe``:
    /// the tool has no option that leaves Basic out.
    var curlFlag: String {
        switch scheme {
        case .basic: "--basic"
        case .digest: "--digest"
        case .any, .anySafe: "--anyauth"
        case .ntlm: "--ntlm"
        case .negotiate: "--negotiate"
        }
    }

    /// The curl command-line option for this method towards a proxy; nil for Basic, the default.
    var proxyCurlFlag: String? {
        switch scheme {
        case .basic: nil
        case .digest: "--proxy-digest"
        case .any, .anySafe: "--proxy-anyauth"
        case .ntlm: "--proxy-ntlm"
        case .negotiate: "--proxy-negotiate"
        }
    }

    /// The running libcurl's feature bits, read once.
    private static let features = Int32(curlew_version_features())

    /// The running libcurl's version, for error messages.
    static let libcurlVersion = String(cString: curlew_version_string())
}
