import CCurlShims
import Foundation
import HTTPTypes

/// What an HTTPS hop's handle was given of an ``AltSvcStore``: libcurl keeps an Alt-Svc cache
/// per easy handle, read from `CURLOPT_ALTSVC`'s file when the option is set and written back
/// only by `curl_easy_cleanup`. So the store's entries for the hop's origin are staged into a
/// private file of the handle's own, the handle is freed after the hop instead of pooled, and
/// what libcurl wrote back is merged into the store (see docs/ARCHITECTURE.md, "Alt-Svc").
struct AltSvcStage {
    let store: AltSvcStore
    let origin: AltSvcOrigin
    /// The handle's file, in the pool's private folder.
    let path: String
    /// The entries as staged.
    let staged: [AltSvcEntry]
    /// Whether the hop's responses may teach the store: ``AlternativeServices/updatesStore``
    /// and a trust policy that validates the chain. Otherwise libcurl is told not to write the
    /// file (`CURLALTSVC_READONLYFILE`) and nothing is read back.
    let teaches: Bool
    /// The protocol of the connection a response of the hop carried an `Alt-Svc` field over;
    /// nil when none did, and then the store is left as it is.
    var fieldProtocol: AltSvcProtocol?
    /// Set when the hop fell back to the origin: what the handle wrote is not merged.
    var discarded = false

    /// libcurl's codes for a connection to the alternative that never carried the request:
    /// name lookup, connect, TLS handshake and certificate failures.
    /// `Alt-Svc`.
    static let fieldName = HTTPField.Name("Alt-Svc")

    static func isConnectFailure(_ code: CURLcode) -> Bool {
        code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_CONNECT || code == CURLE_SSL_CONNECT_ERROR
            || code == CURLE_PEER_FAILED_VERIFICATION
    }
}

extension TransferContext {
    /// When the hop went to an alternative service that it could not connect to before any of
    /// the request went out (the caller checked that no head came and nothing failed in a
    /// callback), the origin's alternatives are forgotten (by a hop that may teach the store);
    /// a failure libcurl says happened while connecting (lookup, connect, TLS) sends the hop
    /// again to the origin itself (RFC 7838 §2.4), any other failure (a timeout, say) is
    /// reported as it is.
    func fallingBackFromAlternative(code: CURLcode) -> Completion? {
        guard let easy, let stage = easy.altSvcStage, !stage.staged.isEmpty, !bodyStarted else { return nil }
        if stage.teaches { stage.store.forget(stage.origin) }
        easy.altSvcStage?.discarded = true
        guard AltSvcStage.isConnectFailure(code) else { return nil }
        altSvcFallback = true
        keepsUnsentPump = true
        return .redirect
    }

    /// Notes that a head of the hop carried an `Alt-Svc` field, and over which protocol, when
    /// the hop's handle has the store's entries staged and may teach it.
    func noteAltSvcField(in head: HTTPResponse) {
        guard let easy, easy.altSvcStage?.teaches == true, let name = AltSvcStage.fieldName, head.headerFields[name] != nil
        else { return }
        var version = 0
        _ = curlew_easy_getinfo_long(easy.pointer, CURLINFO_HTTP_VERSION, &version)
        easy.altSvcStage?.fieldProtocol = switch TransferMetrics.httpVersion(curlValue: version) {
        case .http2: .http2
        case .http3: .http3
        default: .http1
        }
    }
}
