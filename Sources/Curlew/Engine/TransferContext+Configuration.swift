import CCurlShims
import Foundation
import HTTPTypes

extension TransferContext {
    /// Sets every per-request option of a pooled handle for the current hop. Session-wide
    /// options were set when the pool made the handle (see ``EasyHandlePool``); each option
    /// set here has a value for every hop, so nothing of an earlier request survives. The
    /// handle's ``EasyHandle/options`` record skips the `curl_easy_setopt` of a value the
    /// handle has already.
    ///
    /// `sessionHeaders` is the session's shared list of the headers every request gets (see
    /// ``EasyHandlePool/sessionHeaders``), used as is by requests that add none of their own.
    func configure(
        handle easy: EasyHandle, transfer: Transfer, sessionHeaders: UnsafeMutablePointer<curl_slist>?
    ) throws(CurlewError) {
        self.easy = easy
        easy.transfer = Unmanaged.passUnretained(transfer)
        resetHop()
        let options = EasyOptions(handle: easy.pointer, request: request)

        let urlText = request.urlText
        let facts = HopURLFacts(of: request)
        unixSocket = try UnixSocketRoute.resolve(request, urlText: urlText, facts: facts)
        // One access to the handle's record, written back however the hop's options end.
        var record = easy.options
        defer { easy.options = record }
        // libcurl keeps its copy of the URL set and the parsed URL, and starts each transfer
        // from them (also when the last one rewrote its working URL), so the same URL need
        // not be copied or parsed again. Set first: it refuses a NUL byte, which would cut
        // the text short for the parser.
        let curlURL = unixSocket?.curlURL ?? urlText
        if easy.url != curlURL {
            easy.url = nil
            try options.set(CURLOPT_URL, curlURL)
            try easy.parse(curlURL, options)
            easy.url = curlURL
        }
        try options.set(CURLOPT_NOPROGRESS, reportsProgress ? 0 : 1, recorded: &record.noProgress)
        try configureTimeouts(options, record: &record, now: easy.clock.now)
        try configureProtocol(options, isHTTPS: facts.isHTTPS, record: &record)
        try configureMethodAndBody(options, transfer: transfer, record: &record)
        try configureHeaders(options, sessionHeaders: sessionHeaders, record: &record)
        try configureAuthentication(options, facts: facts)
        try configureWireTrace(options, record: &record)
    }

    private func configureTimeouts(
        _ options: EasyOptions, record: inout EasyOptionRecord, now: ContinuousClock.Instant
    ) throws(CurlewError) {
        try settings.validate(url: request.url)
        let timeouts = settings.timeouts
        // 0 restores libcurl's defaults: 300 s to connect, no total limit.
        try options.set(CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds, recorded: &record.connectTimeout)
        var totalMilliseconds = 0
        if let total = timeouts.total {
            let remaining = total - (ContinuousClock.now - startInstant)
            guard remaining > .zero else {
                throw CurlewError(.totalTimeout, "the transfer took longer than \(total)", url: request.url)
            }
            totalMilliseconds = remaining.curlMilliseconds
        }
        try options.set(CURLOPT_TIMEOUT_MS, totalMilliseconds, recorded: &record.timeout)
        // Both have a value on every hop (0 turns the check off): pooled handles keep their options.
        try options.set(CURLOPT_LOW_SPEED_LIMIT, timeouts.minimumSpeed?.bytesPerSecond ?? 0, recorded: &record.lowSpeedLimit)
        try options.set(CURLOPT_LOW_SPEED_TIME, timeouts.minimumSpeed?.curlSeconds ?? 0, recorded: &record.lowSpeedTime)
        // The idle timeout is enforced by the curl loop (see CurlLoop.checkIdleTimeouts), not by
        // libcurl's low-speed check, which averages over several seconds and fires late.
        markActive(at: now)
    }

    private func configureProtocol(_ options: EasyOptions, isHTTPS: Bool, record: inout EasyOptionRecord) throws(CurlewError) {
        let version: Int
        switch settings.httpVersion {
        case .http1_1: version = curlew_CURL_HTTP_VERSION_1_1
        case .http2OverTLS: version = curlew_CURL_HTTP_VERSION_2TLS
        case .http2PriorKnowledge: version = curlew_CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
        }
        try options.set(CURLOPT_HTTP_VERSION, version, recorded: &record.httpVersion)
        // Wait for a connection that may multiplex only where HTTP/2 is possible; on HTTP/1.1
        // it would queue concurrent requests behind the first connection.
        let mayMultiplex = settings.httpVersion == .http2PriorKnowledge
            || (settings.httpVersion == .http2OverTLS && isHTTPS)
        try options.set(CURLOPT_PIPEWAIT, mayMultiplex ? 1 : 0, recorded: &record.pipeWait)
        // Larger reads for bulk bodies, up to libcurl's largest buffer, 512 KiB. Each read is
        // one chunk handed to the consumer, and on the default executor each hand-over wakes a
        // thread of the pool: a 1 GiB stream ran at about 2.2 GB/s with 256 KiB reads and
        // 2.5 GB/s with 512 KiB (4.5 GB/s from 3.1 on `Session.taskExecutor`), at less CPU.
        // A stream reads at most its `streamBufferSize` at a time (16 KiB at least): a chunk
        // is taken whole while the buffer is below that size, so a read as large as the
        // buffer at most doubles it. Best effort: libcurl 7.88 can refuse a new size while a
        // reused handle still holds its old buffer, and the default size works too.
        let readSize: Int
        switch mode {
        case .stream: readSize = min(Self.largestRead, max(16 << 10, settings.streamBufferSize))
        case .download: readSize = Self.largestRead
        case .collect: return
        }
        _ = curlew_easy_setopt_long(options.handle, CURLOPT_BUFFERSIZE, readSize)
    }

    /// libcurl's largest receive buffer (`CURL_MAX_READ_SIZE`).
    private static var largestRead: Int { 512 << 10 }

    private func configureMethodAndBody(
        _ options: EasyOptions, transfer: Transfer, record: inout EasyOptionRecord
    ) throws(CurlewError) {
        let method = request.method
        upload?.close()
        upload = nil
        uploadLength = nil
        uploadedBytes = 0
        bodyStarted = false
        // HTTPGET clears POST, NOBODY and UPLOAD from an earlier request on this handle, and a
        // NULL CUSTOMREQUEST clears its method: skipped when the last hop left them so.
        if !record.plainGet {
            try options.set(CURLOPT_HTTPGET, 1)
            try options.check(curlew_easy_setopt_string(options.handle, CURLOPT_CUSTOMREQUEST, nil), "CURLOPT_CUSTOMREQUEST")
        }
        // Anything but a GET without body changes the method options below.
        record.plainGet = request.body == nil && method == .get
        guard let body = request.body else {
            if !request.headerFields.isEmpty, let stated = request.headerFields[.contentLength], stated != "0" {
                throw CurlewError(
                    .invalidRequest, "the Content-Length header says '\(stated)' but the request has no body",
                    url: request.url)
            }
            switch method {
            case .get: break
            case .head: try options.set(CURLOPT_NOBODY, 1)
            case .post:
                try options.set(CURLOPT_POST, 1)
                try options.set(CURLOPT_POSTFIELDSIZE_LARGE, Int64(0))
            default: try options.set(CURLOPT_CUSTOMREQUEST, method.rawValue)
            }
            return
        }
        let length = try declaredLength(of: body)
        switch body.storage {
        case .data(let data): upload = UploadSource(data: data)
        case .file(let url): upload = try UploadSource(file: url)
        case .stream(_, let replayable, let make):
            if keepsUnsentPump, uploadPump != nil {
                // The last hop sent none of the body (see `resendingWithoutExpect`): it goes now.
                keepsUnsentPump = false
                break
            }
            if uploadPump != nil {
                guard replayable else {
                    throw CurlewError(.bodyNotReplayable, "the one-shot stream body was already sent once", url: request.url)
                }
                uploadPump?.stop()
            }
            let pump = UploadPump(source: try make(), transfer: transfer)
            uploadPump = pump
            pump.start()
        }
        uploadLength = length
        try options.set(CURLOPT_POST, 1)
        try options.set(CURLOPT_POSTFIELDSIZE_LARGE, length ?? -1)
        if method != .post { try options.set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
    }

    /// The length the request declares for `body`: the body's own, or, for a stream of
    /// unknown length, a `Content-Length` the caller set. A caller's `Content-Length` that
    /// disagrees with the body, or a `Transfer-Encoding` beside a length, would make the server
    /// frame the body differently from what is sent, so each is an error.
    private func declaredLength(of body: RequestBody) throws(CurlewError) -> Int64? {
        var length = body.length
        if let stated = request.headerFields[.contentLength] {
            guard let value = Int64(stated), value >= 0, stated.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw CurlewError(.invalidHeader, "the Content-Length header '\(stated.prefix(40))' is not a length", url: request.url)
            }
            if let length, length != value {
                throw CurlewError(
                    .invalidRequest, "the Content-Length header says \(value) bytes but the body has \(length)",
                    url: request.url)
            }
            length = value
        }
        if let coding = request.headerFields[.transferEncoding] {
            guard coding.lowercased() == "chunked", length == nil else {
                throw CurlewError(
                    .invalidRequest,
                    "the Transfer-Encoding header '\(coding.prefix(40))' conflicts with the body; Curlew sends a body of unknown length chunked by itself",
                    url: request.url)
            }
        }
        return length
    }

    private func configureHeaders(
        _ options: EasyOptions, sessionHeaders: UnsafeMutablePointer<curl_slist>?, record: inout EasyOptionRecord
    ) throws(CurlewError) {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        if request.headerFields.isEmpty, request.body == nil, request.method != .post, !settings.storesCookies,
            let sessionHeaders
        {
            // The session's list lives as long as the handles: set once, it stays valid.
            if !record.sessionHeaders {
                try options.check(curlew_easy_setopt_slist(options.handle, CURLOPT_HTTPHEADER, sessionHeaders), "CURLOPT_HTTPHEADER")
                record.sessionHeaders = true
            }
            return
        }
        record.sessionHeaders = false
        var fields = Self.withSessionHeaders(
            request.headerFields, userAgent: settings.userAgent, acceptLanguage: settings.acceptLanguage,
            defaults: settings.defaultHeaders,
            acceptEncoding: settings.automaticDecompression ? ContentDecoder.acceptEncoding : nil)
        if let storage = settings.cookieStorage,
            let stored = storage.cookieHeader(for: request.url, siteForCookies: firstURL, method: request.method)
        {
            // The request's own cookies first, then the jar's (RFC 6265 §5.4).
            fields.append(HTTPField(name: .cookie, value: stored))
        }
        Self.inferFileContentType(&fields, body: request.body)
        if Self.suppressesFormContentType(request, fields: fields) { append("Content-Type:") }
        if request.body != nil {
            try configureExpectation(options, stated: fields[.expect])
        }
        for line in Self.curlHeaderLines(fields) { append(line) }
        // Also when nil: the handle may still point at a list of an earlier request.
        try options.check(curlew_easy_setopt_slist(options.handle, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
    }

    /// `Expect: 100-continue` where the policy or the caller's own field asks for it (with the
    /// policy's wait for an answer), and otherwise an empty `Expect` that keeps libcurl from
    /// adding one to large bodies; see ``ExpectContinue``.
    private func configureExpectation(_ options: EasyOptions, stated: String?) throws(CurlewError) {
        if let stated {
            hopSendsExpect = stated.lowercased() == "100-continue"
        } else if !expectRefused, settings.expectContinue.applies(toBodyOfLength: uploadLength) {
            append("Expect: 100-continue")
            hopSendsExpect = true
        } else {
            append("Expect:")
            hopSendsExpect = false
        }
        if hopSendsExpect {
            try options.set(CURLOPT_EXPECT_100_TIMEOUT_MS, settings.expectContinue.timeout.curlMilliseconds)
        }
    }

    private func append(_ line: String) {
        headerList = curl_slist_append(headerList, line)
    }

    /// `fields` plus the session's headers where `fields` lacks them: its default headers,
    /// and its User-Agent and Accept-Language where neither `fields` nor the defaults have one.
    /// With `acceptEncoding` (the codings Curlew decodes, when it decodes), an `Accept-Encoding`
    /// field goes first, where libcurl's `CURLOPT_ACCEPT_ENCODING` put it: as a listed field
    /// libcurl formats it once per request instead of twice (about 4,000 instructions).
    static func withSessionHeaders(
        _ fields: HTTPFields, userAgent: String?, acceptLanguage: String?, defaults: HTTPFields,
        acceptEncoding: String? = nil
    ) -> HTTPFields {
        var fields = fields
        if let acceptEncoding, fields[.acceptEncoding] == nil, defaults[.acceptEncoding] == nil {
            fields.insert(HTTPField(name: .acceptEncoding, value: acceptEncoding), at: 0)
        }
        if let userAgent, fields[.userAgent] == nil, defaults[.userAgent] == nil { fields[.userAgent] = userAgent }
        for field in defaults where fields[field.name] == nil { fields.append(field) }
        if let acceptLanguage, fields[.acceptLanguage] == nil { fields[.acceptLanguage] = acceptLanguage }
        return fields
    }

    /// `fields` as `CURLOPT_HTTPHEADER` lines, with every cookie in one `Cookie` line joined by
    /// `; ` (RFC 6265 §5.4): `HTTPFields` splits a `Cookie` value into one field per cookie,
    /// and as separate lines they would reach the server as several fields, which HTTP/1.1
    /// servers join with a comma into one wrong cookie.
    static func curlHeaderLines(_ fields: HTTPFields) -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(fields.count)
        var cookies: [String] = []
        for field in fields {
            if field.name == .cookie {
                cookies.append(field.value)
            } else {
                lines.append(curlHeaderLine(field))
            }
        }
        if !cookies.isEmpty { lines.append(curlHeaderLine(HTTPField(name: .cookie, value: cookies.joined(separator: "; ")))) }
        return lines
    }

    /// A field in `CURLOPT_HTTPHEADER`'s syntax, where an empty value is written "Name;"
    /// ("Name:" would remove the header instead).
    static func curlHeaderLine(_ field: HTTPField) -> String {
        field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)"
    }
}

/// Typed `curl_easy_setopt` calls that throw a ``CurlewError`` naming the option on failure.
///
/// The option's name is only rendered on failure: describing a C enum goes through
/// reflection, far too slow for the dozens of options set per request.
struct EasyOptions {
    let handle: UnsafeMutableRawPointer
    /// The request whose URL a failure names, parsed only then (see ``OutgoingRequest/urlText``).
    let request: OutgoingRequest
    private var url: URL { request.url }

    func set(_ option: CURLoption, _ value: Int) throws(CurlewError) {
        try check(curlew_easy_setopt_long(handle, option, value), option)
    }

    func set(_ option: CURLoption, _ value: Int64) throws(CurlewError) {
        try check(curlew_easy_setopt_off_t(handle, option, curl_off_t(value)), option)
    }

    func set(_ option: CURLoption, _ value: String) throws(CurlewError) {
        let hasNUL = value.utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? value.utf8.contains(0)
        guard !hasNUL else {
            throw CurlewError(.invalidRequest, "a NUL byte in the value of libcurl option \(option.rawValue)", url: url)
        }
        // withCString lends a native string's own bytes; passing `value` to the C parameter
        // directly would copy them into a new array first.
        let code = value.withCString { curlew_easy_setopt_string(handle, option, $0) }
        try check(code, option)
    }

    func check(_ code: CURLcode, _ option: CURLoption) throws(CurlewError) {
        guard code == CURLE_OK else { throw failure(code, "option \(option.rawValue)") }
    }

    func check(_ code: CURLcode, _ name: StaticString) throws(CurlewError) {
        guard code == CURLE_OK else { throw failure(code, "\(name)") }
    }

    private func failure(_ code: CURLcode, _ what: String) -> CurlewError {
        CurlewError(
            .invalidRequest, "libcurl rejected \(what): \(String(cString: curl_easy_strerror(code)))",
            url: url, curlCode: Int(code.rawValue))
    }
}

extension TransferContext {
    /// Whether to send an empty `Content-Type:` line, which keeps libcurl from adding
    /// `Content-Type: application/x-www-form-urlencoded` to a request that names no type: any
    /// request with a body, and a POST without one (libcurl types that too). Curlew sends a
    /// type only when asked; ``CURLCommand`` prints the same line, so the command matches.
    static func suppressesFormContentType(_ request: OutgoingRequest, fields: HTTPFields) -> Bool {
        (request.body != nil || request.method == .post) && fields[.contentType] == nil
    }

    /// Labels a file body by its extension (`MIMEType.forFileName(_:)`, `application/octet-stream`
    /// when unknown), as multipart file parts are, when neither the request nor the session's
    /// default headers name a `Content-Type`. ``CURLCommand`` does the same, so the command matches.
    static func inferFileContentType(_ fields: inout HTTPFields, body: RequestBody?) {
        guard fields[.contentType] == nil, case .file(let url)? = body?.storage else { return }
        fields[.contentType] = MIMEType.forFileName(url.lastPathComponent)
    }
}
