import CCurlShims
import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

extension EasyHandlePool {
    /// Stages the session's alternative services on `handle` for the hop of `context`, when the
    /// hop is HTTPS to a named host or IPv4 address, not over a Unix socket, and not the resend
    /// of a hop whose alternative failed. A hop whose responses may not teach the store (not
    /// ``AlternativeServices/updatesStore``, or a trust policy that does not validate the chain)
    /// gets `CURLALTSVC_READONLYFILE`. Fails with ``CurlewError/Kind/fileSystem`` when the
    /// private file cannot be written.
    func prepareAltSvc(for context: TransferContext, on handle: EasyHandle, request: OutgoingRequest) throws(CurlewError) {
        guard let services = context.settings.session.alternativeServices else { return }
        if context.altSvcFallback {
            context.altSvcFallback = false
            return
        }
        guard context.unixSocket == nil, HopURLFacts(of: request).isHTTPS, let host = request.url.host,
            let name = AltSvcEntry.normalizedHost(host)
        else { return }
        let origin = AltSvcOrigin(host: name, port: request.url.port ?? 443)
        let now = Date()
        let data = AltSvcFile.contents(of: services.store.alternatives(of: origin, now: now), now: now)
        let folder = try altSvcFolder(request: request)
        altSvcFileCount += 1
        let path = "\(folder)/handle-\(altSvcFileCount).txt"
        try PrivateFile.save(data, to: URL(fileURLWithPath: path), what: "the Alt-Svc file of a transfer")
        // Freed after the hop, never pooled: its cache lives as long as the handle.
        handle.retiring = true
        let teaches = services.updatesStore && settingsTrustValidatesChain(context, host: host)
        handle.altSvcStage = AltSvcStage(
            store: services.store, origin: origin, path: path, staged: AltSvcFile.entries(in: data, for: origin, now: now),
            teaches: teaches)
        let options = EasyOptions(handle: handle.pointer, request: request)
        try options.set(CURLOPT_ALTSVC_CTRL, services.controlBits(teaches: teaches))
        try options.set(CURLOPT_ALTSVC, path)
    }

    /// Whether the hop's trust policy validates the certificate chain, so that a response over
    /// it may teach the store.
    private func settingsTrustValidatesChain(_ context: TransferContext, host: String) -> Bool {
        context.settings.session.trust.policy(forHost: host).policy.validatesChain
    }

    /// Merges what a freed handle's libcurl cache wrote into the store, then deletes the file.
    ///
    /// libcurl keys its entries by the protocol of the connection a field came over, and a new
    /// field (or `clear`) replaces only the entries of that protocol: so when a response of a
    /// hop that teaches carried a field, the store's alternatives of the hop's origin become the
    /// entries libcurl wrote for that protocol (none for `clear`), as RFC 7838 §3 says a new
    /// field replaces all of them. Entries for any other origin or host are ignored.
    func finishAltSvc(_ stage: AltSvcStage) {
        defer { unlink(stage.path) }
        guard !stage.discarded, stage.teaches, let fieldProtocol = stage.fieldProtocol else { return }
        let url = URL(fileURLWithPath: stage.path)
        guard
            let data = try? PrivateFile.contents(
                of: url, what: "the Alt-Svc file of a transfer", maximumSize: AltSvcStore.maximumFileSize)
        else { return }
        let now = Date()
        let learned = AltSvcFile.entries(in: data, for: stage.origin, now: now).filter { $0.originProtocol == fieldProtocol }
        stage.store.replace(alternativesOf: stage.origin, with: learned, now: now)
    }

    /// The pool's private folder for the handles' files (mode 0700), made on first use.
    private func altSvcFolder(request: OutgoingRequest) throws(CurlewError) -> String {
        if let altSvcFolderPath { return altSvcFolderPath }
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("curlew-altsvc.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CurlewError(
                .fileSystem, "could not make a private folder for the Alt-Svc files: \(String(cString: strerror(errno)))",
                url: request.url)
        }
        let path = String(cString: made)
        altSvcFolderPath = path
        return path
    }

    /// Removes the private folder and whatever is left in it; with the pool.
    func removeAltSvcFolder() {
        guard let altSvcFolderPath else { return }
        if let names = try? FileManager.default.contentsOfDirectory(atPath: altSvcFolderPath) {
            for name in names { unlink("\(altSvcFolderPath)/\(name)") }
        }
        rmdir(altSvcFolderPath)
        self.altSvcFolderPath = nil
    }
}
