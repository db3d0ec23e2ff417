import CCurlShims
import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
