import CCurlShims
import Foundation

extension TransferContext {
    /// The credentials for the current hop: the request's own while the hop stays at the origin
    /// of the request's URL, else the session's entry for the hop's own origin. So credentials
    /// never reach an origin they were not given for, also across redirects (Curlew follows
    /// them itself, so libcurl's own rule, `CURLOPT_UNRESTRICTED_AUTH` off, never applies).
    var hopCredential: HTTPCredential? {
        if let own = settings.credential, RedirectRules.isSameOrigin(request.url, firstURL) { return own }
        // Asked first, so that a session without stored credentials never parses the URL.
        guard !settings.credentials.isEmpty else { return nil }
        return settings.credentials.credential(for: request.url)
    }

    /// Sets or clears `CURLOPT_HTTPAUTH`, `CURLOPT_USERNAME` and `CURLOPT_PASSWORD` for this hop.
    ///
    /// libcurl keeps authentication state that no option resets (the method it picked, a
    /// Digest nonce), so a handle that carried credentials is not pooled again:
    /// ``hopCarriesCredentials`` tells the curl loop to retire it (see
    /// ``EasyHandlePool/retireWhenReturned(_:)``); hops without credentials therefore set
    /// nothing here.
    ///
    /// libcurl 7.88 also keeps one bit on the **connection**: a multi-pass method (Digest, any,
    /// NTLM, Negotiate) sends a POST or PUT first as a probe with `Content-Length: 0`, marking
    /// the connection `authneg`, and a later request without credentials on that connection
    /// returns before clearing it, so its body is not sent (`Content-Length: 0`; seen under
    /// parallel load as POSTs arriving empty). Connections used with a multi-pass method are
    /// therefore closed after their transfer (`CURLOPT_FORBID_REUSE`), on the retired handle.
    ///
    /// A user name and password in the URL itself (`http://user:pw@host/`) are credentials too:
    /// libcurl sends them with Basic and keeps Basic picked on the handle, so that handle is
    /// retired like any other — pooled, it made a later `.any` request send its password before
    /// any challenge.
    func configureAuthentication(_ options: EasyOptions, facts: HopURLFacts) throws(CurlewError) {
        guard let credential = hopCredential else {
            hopCarriesCredentials = facts.hasUserInfo
            return
        }
        try credential.validate(url: request.url)
        hopCarriesCredentials = true
        if credential.method != .basic { try options.set(CURLOPT_FORBID_REUSE, 1) }
        try options.set(CURLOPT_HTTPAUTH, credential.method.curlMask)
        try options.set(CURLOPT_USERNAME, credential.username)
        try options.set(CURLOPT_PASSWORD, credential.password)
    }

    /// Whether the authority of `urlText` (between `://` and the next `/`, `?` or `#`) holds
    /// an `@`, that is a user name, perhaps with a password.
    static func hasUserInfo(_ urlText: String) -> Bool {
        HopURLFacts(urlText).hasUserInfo
    }
}
