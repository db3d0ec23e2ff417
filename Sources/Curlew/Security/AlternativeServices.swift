import CCurlShims

/// A session's use of alternative services (HTTP Alt-Svc, RFC 7838; libcurl's
/// `CURLOPT_ALTSVC` and `CURLOPT_ALTSVC_CTRL`): off unless set
/// (``SessionConfiguration/alternativeServices``).
///
/// An HTTPS request whose origin has an entry in ``store`` for one of ``protocols`` goes to
/// the alternative's port over its protocol; verified HTTPS responses teach the store (unless
/// ``updatesStore`` is off). See ``AltSvcStore`` for the rules, and `cURLDescription()` prints
/// it as curl's `--alt-svc FILE`.
public struct AlternativeServices: Sendable {
    /// The entries, owned by the caller: sessions share what they learn only through a shared store.
    public var store: AltSvcStore
    /// The protocols an alternative may use (`CURLALTSVC_H1`, `CURLALTSVC_H2`, `CURLALTSVC_H3`);
    /// HTTP/1.1 and HTTP/2 by default. An empty set, or HTTP/3 with a libcurl built without it,
    /// fails requests with ``CurlewError/Kind/invalidRequest`` before any connection.
    public var protocols: Set<AltSvcProtocol>
    /// Whether responses teach ``store``; off, it is only read (`CURLALTSVC_READONLYFILE`).
    public var updatesStore: Bool

    /// Alternative services from `store`.
    public init(store: AltSvcStore, protocols: Set<AltSvcProtocol> = [.http1, .http2], updatesStore: Bool = true) {
        self.store = store
        self.protocols = protocols
        self.updatesStore = updatesStore
    }

    /// Why requests of a session with these settings fail, or nil.
    var problem: String? {
        if protocols.isEmpty { return "the alternative services' protocols are empty; set alternativeServices to nil to turn them off" }
        if protocols.contains(.http3), curlew_version_features() & curlew_CURL_VERSION_HTTP3 == 0 {
            return "the alternative services' protocols include HTTP/3, which this libcurl (\(String(cString: curlew_version_string()))) was built without"
        }
        return nil
    }

    /// The `CURLOPT_ALTSVC_CTRL` bits for a hop; `teaches` false adds `CURLALTSVC_READONLYFILE`.
    func controlBits(teaches: Bool) -> Int {
        var bits = 0
        if protocols.contains(.http1) { bits |= Int(curlew_CURLALTSVC_H1) }
        if protocols.contains(.http2) { bits |= Int(curlew_CURLALTSVC_H2) }
        if protocols.contains(.http3) { bits |= Int(curlew_CURLALTSVC_H3) }
        if !teaches { bits |= Int(curlew_CURLALTSVC_READONLYFILE) }
        return bits
    }
}
