import CCurlShims

/// One libcurl easy handle of the curl thread's pool, with what the pool knows about it.
///
/// The handle's callback data (`CURLOPT_WRITEDATA` and the others) and `CURLOPT_PRIVATE`
/// point at this object, set once when the handle is made: a hop only stores its
/// ``Transfer`` in ``transfer``, and the callbacks find it there. The error buffer belongs to
/// the handle for the same reason. ``options`` remembers the per-request options last set, so
/// that a hop sets only those whose value differs from the previous hop's (see
/// ``EasyOptionRecord``).
///
/// Used by the curl thread only: the pool makes, lends and frees it there.
final class EasyHandle {
    let pointer: UnsafeMutableRawPointer
    /// libcurl's `CURLOPT_ERRORBUFFER`, cleared before each hop.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// `CURLOPT_HEADERDATA`: the C header callback keeps a head's lines here and calls
    /// ``CurlCallbacks/headEnded`` once, at the head's blank line (see ``TransferContext/handleHead(_:transfer:at:)``).
    let headBuffer: UnsafeMutablePointer<curlew_head_buffer>
    /// The transfer whose hop the handle carries, while it is in the multi handle; the
    /// callbacks' `userdata` resolves to it. Unretained: the curl loop's `active` table keeps
    /// the transfer alive while its handle is in use.
    var transfer: Unmanaged<Transfer>?
    /// The same transfer, retained while the handle is in the curl loop's `active` list.
    var owner: Transfer?
    /// The handle's index in the curl loop's `active` list; -1 when not in it.
    var activeIndex = -1
    /// The URL last given to `CURLOPT_URL` and parsed into ``parsedURL``: libcurl starts each
    /// transfer from them, so the same URL is neither set nor parsed again. Kept apart from
    /// ``options``, which stays trivial to copy.
    var url: String?
    /// `CURLOPT_CURLU`: the hop's URL as libcurl's URL API parsed it (see ``parse(_:_:)``).
    ///
    /// Given only a `CURLOPT_URL`, libcurl 7.88 parses the text at the start of every transfer
    /// and then prints the parsed URL back into a new string through its own printf, a byte at
    /// a time: about 5.5k instructions per request for a short URL, more for a long one. Given
    /// a parsed handle (which, as its documentation says, overrides `CURLOPT_URL` and may be
    /// updated between transfers), it copies the parts and does neither. `CURLOPT_URL` is still
    /// set, to the same text: libcurl reports it as the transfer's URL.
    let parsedURL: OpaquePointer
    /// The per-request options as last set on the handle.
    var options = EasyOptionRecord()
    /// Whether a request's own proxy is set, so the session's must be set again on reuse.
    var proxyOverridden = false
    /// Whether a request's HTTP/2 stream weight is set, so libcurl's default must be set again on reuse.
    var hasStreamWeight = false
    /// Whether the `CURLOPT_PROXY_*` TLS options hold an HTTPS proxy's trust policy rather than
    /// libcurl's defaults, so they must be set back for a request without one.
    var hasProxyTrust = false
    /// Whether a request's own `CURLOPT_CONNECT_TO` or `CURLOPT_IPRESOLVE` is set, so the
    /// session's must be set again on reuse.
    var networkOverridden = false
    /// The `CURLOPT_CONNECT_TO` list of a request's own mapping, which libcurl reads but does
    /// not copy: freed when replaced and with the handle.
    var connectToList: UnsafeMutablePointer<curl_slist>?
    /// Whether the last hop went over a Unix-domain socket, so the option must be cleared.
    var onUnixSocket = false
    /// The index of the trust policy whose TLS options the handle has, when not libcurl's defaults.
    var trustPolicyIndex: Int?
    /// The Alt-Svc entries staged on the handle, merged into their store once it is freed.
    var altSvcStage: AltSvcStage?
    /// Whether the handle carried credentials: it is freed when it comes back, not pooled.
    var retiring = false
    /// The loop's clock, which the callbacks stamp activity with.
    let clock: LoopClock

    /// Nil when libcurl cannot make a handle (only when out of memory).
    init?(clock: LoopClock) {
        guard let pointer = curl_easy_init() else { return nil }
        guard let parsedURL = curl_url() else {
            curl_easy_cleanup(pointer)
            return nil
        }
        guard let headBuffer = curlew_head_buffer_create(TransferContext.maximumHeaderBytes, CurlCallbacks.headEnded, nil)
        else {
            curl_easy_cleanup(pointer)
            curl_url_cleanup(parsedURL)
            return nil
        }
        self.pointer = pointer
        self.parsedURL = parsedURL
        self.headBuffer = headBuffer
        self.clock = clock
        errorBuffer = .allocate(capacity: Int(curlew_CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(curlew_CURL_ERROR_SIZE) + 1)
        headBuffer.pointee.context = userdata
    }

    /// The opaque pointer libcurl passes to the callbacks.
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Runs `body` with the handle behind a callback's `userdata` and its transfer, neither
    /// retained: the pool keeps the handle, and the loop's `active` list its transfer (``owner``),
    /// for as long as the handle is in the multi handle, which is whenever libcurl calls back.
    /// `otherwise` is the answer when the handle carries no transfer.
    @inline(__always)
    static func withTransfer<Answer>(
        _ userdata: UnsafeMutableRawPointer, otherwise: Answer, _ body: (EasyHandle, Transfer) -> Answer
    ) -> Answer {
        Unmanaged<EasyHandle>.fromOpaque(userdata)._withUnsafeGuaranteedRef { handle in
            guard let transfer = handle.transfer else { return otherwise }
            return transfer._withUnsafeGuaranteedRef { body(handle, $0) }
        }
    }

    /// Points the callbacks, `CURLOPT_PRIVATE` and the error buffer at this object; once, when
    /// the handle is made.
    func setStableOptions(_ options: EasyOptions) throws(CurlewError) {
        let data = userdata
        try options.check(curlew_easy_setopt_pointer(pointer, CURLOPT_PRIVATE, data), "CURLOPT_PRIVATE")
        try options.check(curlew_easy_setopt_pointer(pointer, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try options.check(curlew_easy_setopt_pointer(pointer, CURLOPT_WRITEDATA, data), "CURLOPT_WRITEDATA")
        try options.check(curlew_easy_setopt_pointer(pointer, CURLOPT_HEADERDATA, headBuffer), "CURLOPT_HEADERDATA")
        try options.check(curlew_easy_setopt_pointer(pointer, CURLOPT_READDATA, data), "CURLOPT_READDATA")
        try options.check(curlew_easy_setopt_pointer(pointer, CURLOPT_SEEKDATA, data), "CURLOPT_SEEKDATA")
        try options.check(curlew_easy_setopt_pointer(pointer, CURLOPT_XFERINFODATA, data), "CURLOPT_XFERINFODATA")
        try options.check(curlew_easy_setopt_pointer(pointer, CURLOPT_PREREQDATA, data), "CURLOPT_PREREQDATA")
        // Read only while a traced hop has set `CURLOPT_DEBUGFUNCTION` (see `configureWireTrace`).
        try options.check(curlew_easy_setopt_pointer(pointer, CURLOPT_DEBUGDATA, data), "CURLOPT_DEBUGDATA")
        try options.check(curlew_easy_setopt_pointer(pointer, CURLOPT_CURLU, UnsafeMutableRawPointer(parsedURL)), "CURLOPT_CURLU")
    }

    /// Parses `url` into ``parsedURL`` with the flags libcurl 7.88 gives its own parse of a
    /// `CURLOPT_URL` (so that what it accepts, and the parts it finds, stay the same). Only
    /// between transfers: libcurl reads the parsed handle while one runs. A refusal names the
    /// request of `options`, whose URL is made only then, as for a refused option.
    func parse(_ url: String, _ options: EasyOptions) throws(CurlewError) {
        let flags = UInt32(CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME)
        let code = url.withCString { curl_url_set(parsedURL, CURLUPART_URL, $0, flags) }
        guard code == CURLUE_OK else {
            throw CurlewError(
                .invalidURL, "libcurl rejected the URL: \(String(cString: curl_url_strerror(code)))", url: options.request.url)
        }
    }

    /// Frees the libcurl handle, its parsed URL and the error buffer. The handle must be out of
    /// the multi handle.
    func close() {
        curl_easy_cleanup(pointer)
        curl_url_cleanup(parsedURL)
        errorBuffer.deallocate()
        curlew_head_buffer_free(headBuffer)
        if let connectToList { curl_slist_free_all(connectToList) }
        connectToList = nil
        transfer = nil
        owner = nil
    }
}

/// The values of the per-request options last set on an easy handle; nil where unknown.
///
/// libcurl keeps every option until it is set again (the pool never resets handles), so an
/// option whose value equals the one recorded needs no `curl_easy_setopt`. A value is
/// forgotten before its option is set and recorded only after libcurl took it, so a failed
/// set leaves the option unknown and the next hop sets it.
struct EasyOptionRecord: Equatable {
    var noProgress: Int?
    var connectTimeout: Int?
    var timeout: Int?
    var lowSpeedLimit: Int?
    var lowSpeedTime: Int?
    var httpVersion: Int?
    var pipeWait: Int?
    /// Whether the method options are as `CURLOPT_HTTPGET` and a NULL `CURLOPT_CUSTOMREQUEST`
    /// left them: a plain GET without body, `NOBODY`, `POST` or custom method.
    var plainGet = false
    /// Whether `CURLOPT_HTTPHEADER` points at the session's shared header list, which lives as
    /// long as the handles; a request's own list is set on every hop.
    var sessionHeaders = false
    /// Whether `CURLOPT_DEBUGFUNCTION` and `CURLOPT_VERBOSE` are set, for a traced hop; off for
    /// a new handle (libcurl's default), nil while unknown (a set failed).
    var tracing: Bool? = false
}

extension EasyOptions {
    /// Sets `option` to `value` unless `recorded` says the handle has that value already.
    func set(_ option: CURLoption, _ value: Int, recorded: inout Int?) throws(CurlewError) {
        guard recorded != value else { return }
        recorded = nil
        try set(option, value)
        recorded = value
    }
}

/// An empty C string for the life of the process.
enum EmptyCString {
    // Safe: allocated and written once, by the initializer; afterwards only ever read.
    nonisolated(unsafe) static let pointer: UnsafePointer<CChar> = {
        let byte = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        byte.initialize(to: 0)
        return UnsafePointer(byte)
    }()
}
