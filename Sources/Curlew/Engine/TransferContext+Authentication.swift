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
    /// libcurl keeps authentication state that no option resets (the method it picked, a
    /// Digest nonce), so a handle that carried credentials is never pooled again:
    /// ``hopCarriesCredentials`` tells the curl loop to free it (see
    /// ``EasyHandlePool/retireWhenReturned(_:)``), also between the hops of one request, which
    /// each take a handle. A hop without credentials therefore always has a handle that never
    /// had any, and sets nothing (libcurl's defaults: no user, no password, Basic): the common
    /// request pays nothing for authentication.
    func configureAuthentication(_ options: EasyOptions) throws(CurlewError) {
        guard let credential = hopCredential else {
            hopCarriesCredentials = false
            return
        }
        try credential.validate(url: request.url)
        hopCarriesCredentials = true
        try options.set(CURLOPT_HTTPAUTH, credential.method.curlMask)
        try options.set(CURLOPT_USERNAME, credential.username)
        try options.set(CURLOPT_PASSWORD, credential.password)
    }
}
