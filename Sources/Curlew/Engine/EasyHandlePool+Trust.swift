import CCurlShims
import CTLSShims
import Foundation

extension EasyHandlePool {
    /// Sets the TLS options of the trust policy for the host of `request`'s URL on `handle`, unless the
    /// handle already has them, and returns the policy. With a uniform configuration (no host
    /// patterns) the options were set when the handle was made, and the policy is returned
    /// only when it has a check to run after the handshake; otherwise nil, at no cost.
    ///
    /// Every TLS option a policy may change is set each time another policy is applied, so a
    /// pooled handle keeps nothing of an earlier one. libcurl only reuses a connection whose
    /// TLS settings (verification, CA blob and path, version, client certificate) equal the
    /// request's, and the post-handshake check runs on reused connections too.
    func prepareTrust(on handle: EasyHandle, request: OutgoingRequest) throws(CurlewError) -> ResolvedTrustPolicy? {
        let resolved: ResolvedTrust
        switch trust {
        case .success(let value): resolved = value
        case .failure(let problem):
            throw CurlewError(.invalidRequest, "the session's trust configuration cannot be used: \(problem.message)", url: request.url)
        }
        if resolved.isUniform && !resolved.uniformPolicyActsPerRequest { return nil }
        let url = request.url
        let policy = resolved.policy(forHost: url.host ?? "")
        // A uniform policy was applied when the handle was made (see `applyUniformTrust`).
        if !resolved.isUniform, handle.trustPolicyIndex != policy.index {
            // Forget the old policy first: if setting the new one fails half way, the next
            // request sets it all again.
            handle.trustPolicyIndex = nil
            try apply(policy, EasyOptions(handle: handle.pointer, request: request))
            handle.trustPolicyIndex = policy.index
        }
        // `CURLOPT_PREREQDATA` points at the handle, whose transfer the callback reads.
        logIfInsecure(policy, url: url)
        return resolved.isUniform && policy.postHandshakeCheck == nil ? nil : policy
    }

    /// Sets a uniform trust configuration's policy on a new handle, unless libcurl's defaults
    /// are that policy already.
    func applyUniformTrust(on handle: EasyHandle, request: OutgoingRequest) throws(CurlewError) {
        guard case .success(let resolved) = trust, resolved.isUniform, let policy = resolved.policies.first,
            !policy.isLibcurlDefault
        else { return }
        try apply(policy, EasyOptions(handle: handle.pointer, request: request))
        handle.trustPolicyIndex = policy.index
    }

    /// Warns, once per session and policy, that a request goes out without any TLS checks.
    private func logIfInsecure(_ policy: ResolvedTrustPolicy, url: URL) {
        guard let reason = policy.insecureReason, url.scheme?.lowercased() == "https",
            loggedInsecurePolicies.insert(policy.index).inserted
        else { return }
        configuration.logger?.warning("Curlew: TLS certificate and host name checks are OFF for \(policy.scope): \(reason)")
    }

    private func apply(_ policy: ResolvedTrustPolicy, _ options: EasyOptions) throws(CurlewError) {
        try applyTLS(policy, .origin, options)
        // A resumed TLS session has no verified chain to check pins against: full handshakes
        // for policies that check after the handshake.
        try options.set(CURLOPT_SSL_SESSIONID_CACHE, policy.postHandshakeCheck == nil ? 1 : 0)
        let callback: curlew_prereq_callback? = policy.postHandshakeCheck == nil ? nil : CurlCallbacks.prerequest
        try options.check(curlew_easy_setopt_prereq_callback(options.handle, callback), "CURLOPT_PREREQFUNCTION")
    }

    /// Sets an HTTPS proxy's own trust policy on `handle` (`CURLOPT_PROXY_*`), or libcurl's
    /// defaults again where an earlier request left another; nothing when neither.
    func applyProxyTrust(
        _ trust: Result<ResolvedTrustPolicy, TrustConfigurationProblem>?, of proxy: ProxyConfiguration,
        on handle: EasyHandle, _ options: EasyOptions
    ) throws(CurlewError) {
        switch trust {
        case nil:
            guard handle.hasProxyTrust else { return }
            try applyTLS(nil, .proxy, options)
            try setString(CURLOPT_PROXY_PINNEDPUBLICKEY, nil, options)
            handle.hasProxyTrust = false
        case .failure(let problem)?:
            throw CurlewError(
                .invalidRequest, "the proxy's trust policy cannot be used: \(problem.message)", url: options.request.url)
        case .success(let policy)?:
            // Marked first: if setting it fails half way, the next request sets it all again.
            handle.hasProxyTrust = true
            try applyTLS(policy, .proxy, options)
            try setString(CURLOPT_PROXY_PINNEDPUBLICKEY, policy.libcurlPinnedPublicKeys, options)
            if let reason = policy.insecureReason, let name = proxy.displayURL, loggedInsecureProxies.insert(name).inserted {
                configuration.logger?.warning("Curlew: TLS certificate and host name checks are OFF for the proxy \(name): \(reason)")
            }
        }
    }

    /// The TLS options one policy sets for one connection, the origin's or the proxy's; nil
    /// sets libcurl's defaults.
    private func applyTLS(_ policy: ResolvedTrustPolicy?, _ names: TLSOptionNames, _ options: EasyOptions) throws(CurlewError) {
        try options.set(names.verifyPeer, policy?.verifyPeer ?? true ? 1 : 0)
        try options.set(names.verifyHost, policy?.verifyHost ?? true ? 2 : 0)
        try setBlob(names.caInfoBlob, policy?.certificateAuthorities, options)
        if policy?.replacesSystemAuthorities == true || LibcurlDefaults.caPath == nil {
            try setString(names.caPath, nil, options)
        } else if let path = LibcurlDefaults.caPath {
            try options.set(names.caPath, path)
        }
        switch policy?.policy.minimumTLSVersion {
        case .v1_2?: try options.set(names.sslVersion, CURL_SSLVERSION_TLSv1_2)
        case .v1_3?: try options.set(names.sslVersion, CURL_SSLVERSION_TLSv1_3)
        case nil: try options.set(names.sslVersion, CURL_SSLVERSION_DEFAULT)
        }
        try applyClientCertificate(policy?.policy.clientCertificate, names, options)
        try setString(names.revocationList, policy?.policy.revocationListFile, options)
        let parameters = policy?.policy.tlsParameters
        try setString(names.cipherList, parameters?.cipherList, options)
        try setString(names.tls13Ciphers, parameters?.tls13CipherList, options)
        // libcurl has no proxy variant of these two: they apply to the origin's connection only.
        if let curves = names.curves { try setString(curves, parameters?.groupList, options) }
        if let verifyStatus = names.verifyStatus { try options.set(verifyStatus, parameters?.requiresOCSPStapling == true ? 1 : 0) }
    }

    private func applyClientCertificate(_ certificate: ClientCertificate?, _ names: TLSOptionNames, _ options: EasyOptions) throws(CurlewError) {
        func setSource(_ source: ClientCertificate.Source?, path: CURLoption, blob: CURLoption) throws(CurlewError) {
            switch source {
            case .file(let file)?:
                try options.set(path, file)
                try setBlob(blob, nil, options)
            case .data(let data)?:
                try setString(path, nil, options)
                try setBlob(blob, data, options)
            case nil:
                try setString(path, nil, options)
                try setBlob(blob, nil, options)
            }
        }
        try setSource(certificate?.certificate, path: names.certificate, blob: names.certificateBlob)
        try setSource(certificate?.key, path: names.key, blob: names.keyBlob)
        try setString(names.certificateType, certificate?.format.rawValue, options)
        try setString(names.keyType, certificate.map { $0.key == nil ? $0.format.rawValue : $0.keyFormat.rawValue }, options)
        try setString(names.keyPassword, certificate?.passphrase, options)
    }

    private func setString(_ option: CURLoption, _ value: String?, _ options: EasyOptions) throws(CurlewError) {
        if let value {
            try options.set(option, value)
        } else {
            try options.check(curlew_easy_setopt_string(options.handle, option, nil), option)
        }
    }

    /// Sets a blob option (libcurl copies the bytes), or clears it for nil.
    private func setBlob(_ option: CURLoption, _ data: Data?, _ options: EasyOptions) throws(CurlewError) {
        guard let data else {
            try options.check(curlew_easy_setopt_pointer(options.handle, option, nil), option)
            return
        }
        let code = data.withUnsafeBytes { raw -> CURLcode in
            var blob = curl_blob(data: UnsafeMutableRawPointer(mutating: raw.baseAddress), len: raw.count, flags: UInt32(CURL_BLOB_COPY))
            return curlew_easy_setopt_pointer(options.handle, option, &blob)
        }
        try options.check(code, option)
    }
}

/// The libcurl options of one TLS connection of a transfer: the origin's, or an HTTPS proxy's
/// (`CURLOPT_PROXY_*`), so one function sets either from a policy.
struct TLSOptionNames {
    let verifyPeer, verifyHost, caInfoBlob, caPath, sslVersion: CURLoption
    let certificate, certificateBlob, key, keyBlob, certificateType, keyType, keyPassword: CURLoption
    let cipherList, tls13Ciphers, revocationList: CURLoption
    /// Origin only: libcurl has no `CURLOPT_PROXY_` variant.
    let curves, verifyStatus: CURLoption?

    static let origin = TLSOptionNames(
        verifyPeer: CURLOPT_SSL_VERIFYPEER, verifyHost: CURLOPT_SSL_VERIFYHOST, caInfoBlob: CURLOPT_CAINFO_BLOB,
        caPath: CURLOPT_CAPATH, sslVersion: CURLOPT_SSLVERSION, certificate: CURLOPT_SSLCERT,
        certificateBlob: CURLOPT_SSLCERT_BLOB, key: CURLOPT_SSLKEY, keyBlob: CURLOPT_SSLKEY_BLOB,
        certificateType: CURLOPT_SSLCERTTYPE, keyType: CURLOPT_SSLKEYTYPE, keyPassword: CURLOPT_KEYPASSWD,
        cipherList: CURLOPT_SSL_CIPHER_LIST, tls13Ciphers: CURLOPT_TLS13_CIPHERS, revocationList: CURLOPT_CRLFILE,
        curves: CURLOPT_SSL_EC_CURVES,
        verifyStatus: CURLOPT_SSL_VERIFYSTATUS)

    static let proxy = TLSOptionNames(
        verifyPeer: CURLOPT_PROXY_SSL_VERIFYPEER, verifyHost: CURLOPT_PROXY_SSL_VERIFYHOST,
        caInfoBlob: CURLOPT_PROXY_CAINFO_BLOB, caPath: CURLOPT_PROXY_CAPATH, sslVersion: CURLOPT_PROXY_SSLVERSION,
        certificate: CURLOPT_PROXY_SSLCERT, certificateBlob: CURLOPT_PROXY_SSLCERT_BLOB, key: CURLOPT_PROXY_SSLKEY,
        keyBlob: CURLOPT_PROXY_SSLKEY_BLOB, certificateType: CURLOPT_PROXY_SSLCERTTYPE,
        keyType: CURLOPT_PROXY_SSLKEYTYPE, keyPassword: CURLOPT_PROXY_KEYPASSWD,
        cipherList: CURLOPT_PROXY_SSL_CIPHER_LIST, tls13Ciphers: CURLOPT_PROXY_TLS13_CIPHERS,
        revocationList: CURLOPT_PROXY_CRLFILE, curves: nil,
        verifyStatus: nil)
}
