import CCurlShims
import CTLSShims

extension TransferContext {
    /// `CURLOPT_PREREQFUNCTION`: checks the server against the hop's trust policy on the
    /// connection libcurl picked, new or reused, before any byte of the request is written.
    func handlePrerequest() -> Int32 {
        // Policies govern TLS connections; a plain-HTTP hop has no certificate to check.
        guard let policy = trustPolicy, let handle, request.url.scheme?.lowercased() == "https" else {
            return curlew_CURL_PREREQFUNC_OK
        }
        guard let error = TrustEvaluator.evaluate(policy, handle: handle, url: request.url) else {
            return curlew_CURL_PREREQFUNC_OK
        }
        record(error)
        return curlew_CURL_PREREQFUNC_ABORT
    }
}
