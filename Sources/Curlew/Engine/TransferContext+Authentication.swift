import CCurlShims
import Foundation

extension TransferContext {
    /// The credentials for the current hop: the request's own while the hop stays at the origin
    /// of the request's URL, else the session's entry for the hop's own origin. So credentials
    /// never reach an origin they were not given for, also across redirects (Curlew follows
    /// them itself, so libcurl's own rule, `CURLOPT_UNRESTRICTED_AUTH` off, never applies).
    var hopCredential: HTTPCredential? {
        if let own = settings.credential, RedirectRules.isSameOrigin(request.url, firstURL) { return own }
        return settings.credentials.credential(for: request.url)
    }

    /// Sets or clears `CURLOPT_HTTPAUTH`, `CURLOPT_USERNAME` and `CURLOPT_PASSWORD` for this hop.
    ///
    /// Cleared on every hop without credentials, as every per-request option is. libcurl also
    /// keeps authentication state that no option resets (the method it picked, a Digest nonce),
    /// so a handle that carried credentials is not pooled again: ``hopCarriesCredentials`` tells
    /// the curl loop to retire it (see ``EasyHandlePool/retireWhenReturned(_:)``).
    func configureAuthentication(_ options: EasyOptions) throws(CurlewError) {
        guard let credential = hopCredential else {
            hopCarriesCredentials = false
            try options.set(CURLOPT_HTTPAUTH, Int(bitPattern: curlew_CURLAUTH_BASIC))
            try options.check(curlew_easy_setopt_string(options.handle, CURLOPT_USERNAME, nil), "CURLOPT_USERNAME")
            try options.check(curlew_easy_setopt_string(options.handle, CURLOPT_PASSWORD, nil), "CURLOPT_PASSWORD")
            return
        }
        try credential.validate(url: request.url)
        hopCarriesCredentials = true
        try options.set(CURLOPT_HTTPAUTH, credential.method.curlMask)
        try options.set(CURLOPT_USERNAME, credential.username)
        try options.set(CURLOPT_PASSWORD, credential.password)
    }
}
