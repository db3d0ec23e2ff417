import Foundation

/// A user name and password for HTTP authentication, with the method to use them by.
///
/// Its descriptions (`description`, `debugDescription`, `dump`) never show the password.
public struct HTTPCredential: Sendable, Hashable {
    /// The user name; not empty, and without CR, LF or NUL.
    public var username: String
    /// The password; without CR, LF or NUL.
    public var password: String
    /// How the credentials are sent.
    public var method: HTTPAuthenticationMethod

    /// Creates a credential. ``HTTPAuthenticationMethod/any`` answers the server's challenge
    /// with the safest scheme it offers; ``HTTPAuthenticationMethod/basic`` sends the
    /// credentials with the first request.
    public init(username: String, password: String, method: HTTPAuthenticationMethod = .any) {
        self.username = username
        self.password = password
        self.method = method
    }

    /// Checks what libcurl cannot carry or the method forbids, before anything is sent. The
    /// error names the problem, never the password (nor the user name, which may be mistyped
    /// secret text).
    func validate(url: URL?) throws(CurlewError) {
        func refuse(_ problem: String) -> CurlewError {
            CurlewError(.invalidRequest, "the \(method) credentials cannot be used: \(problem)", url: url)
        }
        guard !username.isEmpty else { throw refuse("the user name is empty") }
        if Self.hasControlBreak(username) { throw refuse("the user name contains CR, LF or NUL") }
        if Self.hasControlBreak(password) { throw refuse("the password contains CR, LF or NUL") }
        if method.forbidsColonInUsername, username.utf8.contains(UInt8(ascii: ":")) {
            throw refuse(
                "the user name contains ':', which Basic authentication cannot carry (RFC 7617); use .digest or .anySafe")
        }
        guard method.isSupported else {
            let names = HTTPAuthenticationMethod.supported.map(\.description).joined(separator: ", ")
            throw refuse(
                "the installed libcurl \(HTTPAuthenticationMethod.libcurlVersion) was built without \(method) (it supports \(names)); check HTTPAuthenticationMethod.isSupported")
        }
    }

    private static func hasControlBreak(_ text: String) -> Bool {
        text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}

extension HTTPCredential: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The user name and method; the password is shown as `***`.
    public var description: String {
        "HTTPCredential(username: \(username.debugDescription), password: \(Redaction.placeholder), method: \(method))"
    }

    /// The same as ``description``: the password is shown as `***`.
    public var debugDescription: String { description }

    /// A mirror whose password is `***`, so that `dump` and the debugger do not show it.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": Redaction.placeholder, "method": method])
    }
}
