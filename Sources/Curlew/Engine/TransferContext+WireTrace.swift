import CCurlShims
import Foundation
import HTTPTypes

extension TransferContext {
    /// Sets the debug callback for a traced hop and removes it for an untraced one; the
    /// handle's record makes this a comparison when nothing changes, so untraced requests on
    /// untraced handles cost no `curl_easy_setopt`.
    func configureWireTrace(_ options: EasyOptions, record: inout EasyOptionRecord) throws(CurlewError) {
        let traced = settings.wireTrace != nil
        guard record.tracing != traced else { return }
        record.tracing = nil
        try options.check(
            curlew_easy_setopt_debug_callback(options.handle, traced ? CurlCallbacks.debug : nil), "CURLOPT_DEBUGFUNCTION")
        record.tracing = traced
    }

    /// A record of libcurl's debug callback, on the curl thread: redacted, logged, and sent to
    /// the request's event streams.
    func handleWireTrace(_ type: curl_infotype, _ data: UnsafeRawBufferPointer, transfer: Transfer) {
        guard let trace = settings.wireTrace else {
            // Only when a handle kept the callback of an earlier traced hop: a defect, counted
            // for the tests that look for one.
            WireTraceRedaction.untracedCallbacks.add(1, ordering: .relaxed)
            return
        }
        guard let kind = WireTraceRedaction.kind(of: type) else { return }
        let listening = transfer.events?.hasListeners ?? false
        guard listening || trace.logger != nil else { return }
        var lines: [String] = []
        var bytes: Data?
        switch kind {
        case .text, .requestHead, .responseHead:
            lines = WireTraceRedaction.lines(String(decoding: data, as: UTF8.self))
        case .requestBody, .responseBody:
            if trace.includesBodyBytes && listening { bytes = Data(data) }
        case .tlsIn, .tlsOut:
            break
        }
        if let logger = trace.logger {
            let logged = WireTraceRecord(kind: kind, lines: lines, byteCount: data.count, bodyBytes: nil)
            logger.log(level: trace.level, "\(logged.description)")
        }
        if listening {
            transfer.events?.emit(.wireTrace(WireTraceRecord(kind: kind, lines: lines, byteCount: data.count, bodyBytes: bytes)))
        }
    }
}
