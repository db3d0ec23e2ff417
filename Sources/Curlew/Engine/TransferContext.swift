import CCurlShims
import Foundation
import HTTPTypes

/// The part of a transfer that only the curl thread touches: the easy handle's options, the
/// head being parsed, the collected body, the upload source and the download file.
///
/// The submitting task fills it in before `CurlLoop.submit`; the loop's locked command queue
/// orders that before the curl thread's first access, and from then on only the curl thread
/// reads or writes it.
///
/// ``Transfer`` is its only subclass, so that a transfer and its context are one object:
/// one allocation and one release per transfer instead of two (250 instructions per small
/// request, measured). The context is still reached as `transfer.context`, which is the
/// transfer itself; nothing overrides its members.
class TransferContext: @unchecked Sendable {
    // Safe: confined as described above; see the type's documentation.
    // The stored properties skip the runtime's exclusivity checks (`@exclusivity(unchecked)`):
    // only the curl thread touches them, one callback at a time, and the checks cost about 70
    // instructions per access, with about 70 accesses per small request.
    @exclusivity(unchecked) var request: OutgoingRequest
    /// The first hop's request, whose URL is the site cookies are judged against (SameSite).
    private let firstRequest: OutgoingRequest
    /// The URL of the first hop, parsed when first asked (see ``OutgoingRequest/urlText``).
    var firstURL: URL { firstRequest.url }
    let mode: Transfer.Mode
    let settings: TransferSettings
    /// Whether progress events are wanted (someone listens to `events`).
    let reportsProgress: Bool

    /// The pooled easy handle of the current hop, while it is in the multi handle.
    @exclusivity(unchecked) var easy: EasyHandle?
    /// The libcurl handle of the current hop, while it is in the multi handle.
    var handle: UnsafeMutableRawPointer? { easy?.pointer }
    /// libcurl's message about the current hop's failure: the handle's error buffer, which
    /// libcurl fills when the hop fails.
    var errorBuffer: UnsafePointer<CChar> { easy.map { UnsafePointer($0.errorBuffer) } ?? EmptyCString.pointer }
    @exclusivity(unchecked) var headerList: UnsafeMutablePointer<curl_slist>?
    @exclusivity(unchecked) var upload: UploadSource?
    @exclusivity(unchecked) var uploadPump: UploadPump?
    /// The declared length of the body being sent (nil: sent chunked), and how much of it
    /// libcurl has taken. libcurl sends whatever the read callback returns, so the callback
    /// keeps every body to its declared length.
    @exclusivity(unchecked) var uploadLength: Int64?
    @exclusivity(unchecked) var uploadedBytes: Int64 = 0
    /// Whether libcurl has taken any byte of this hop's body.
    @exclusivity(unchecked) var bodyStarted = false
    /// Whether this hop asked `Expect: 100-continue`.
    @exclusivity(unchecked) var hopSendsExpect = false
    /// Set when the server refused the expectation (417): the hop is sent again without it,
    /// and no later hop of the transfer asks again.
    @exclusivity(unchecked) var resendWithoutExpect = false
    @exclusivity(unchecked) var expectRefused = false
    /// Whether the next hop keeps the stream body's pump, because the last hop sent none of it.
    @exclusivity(unchecked) var keepsUnsentPump = false
    /// The easy handle saw a refused expectation; libcurl may remember that on the handle, so the
    /// loop frees it instead of pooling it.
    @exclusivity(unchecked) var retiresHandle = false
    /// Set when the hop's alternative service could not be connected to: the hop is sent again
    /// to the origin itself, without Alt-Svc (see ``fallingBackFromAlternative(code:)``).
    @exclusivity(unchecked) var altSvcFallback = false
    /// The Unix-domain socket of this hop, if it goes over one.
    @exclusivity(unchecked) var unixSocket: UnixSocketRoute?
    /// The proxy the session's ``ProxySelector`` chose for this hop, when it chose one (see
    /// ``EasyHandlePool/prepareProxy(for:on:request:)``).
    @exclusivity(unchecked) var chosenProxy: ProxyConfiguration?
    /// The proxy of this hop: the request's own, else the selector's choice, else the session's.
    var proxy: ProxyConfiguration { settings.proxyOverride ?? chosenProxy ?? settings.session.proxy }

    /// The head being parsed, kept as bytes (see ``ResponseHeadParser``).
    @exclusivity(unchecked) private var headParser = ResponseHeadParser()
    /// The head buffer's line count when the idle check last looked (see ``noteHeaderActivity(at:)``).
    @exclusivity(unchecked) private var headerLinesSeen: UInt64 = 0
    @exclusivity(unchecked) private(set) var finalHead: ResponseHead?
    @exclusivity(unchecked) private var pendingRedirect: OutgoingRequest?
    /// The TLS connection of the hop whose head was final, read while it was alive.
    @exclusivity(unchecked) private var tlsConnection: TLSConnectionBox?
    @exclusivity(unchecked) private(set) var redirects: [RedirectHop] = []

    // The body.
    @exclusivity(unchecked) private var body = CollectedBody()
    /// Undoes the body's content codings; nil for a body sent as is.
    @exclusivity(unchecked) private(set) var decoder: ContentDecoder?
    @exclusivity(unchecked) var downloadFile: DownloadFile?
    /// The bytes a resumed download already had: progress counts from there.
    @exclusivity(unchecked) var progressOffset: Int64 = 0

    /// Why a callback aborted the transfer; preferred over libcurl's code.
    @exclusivity(unchecked) var failure: CurlewError?
    /// The trust policy of the current hop, when the session's trust is not uniform.
    @exclusivity(unchecked) var trustPolicy: ResolvedTrustPolicy?
    /// Whether this hop set credentials on the handle (see `configureAuthentication`).
    @exclusivity(unchecked) var hopCarriesCredentials = false
    /// A 401 on a hop with credentials, held back: libcurl may answer its challenge and send
    /// the request again within the same transfer. It is the response only if no other head
    /// follows — when its body starts, or the transfer ends.
    @exclusivity(unchecked) private var heldChallenge: ResponseHead?

    // Progress.
    let startInstant: ContinuousClock.Instant
    @exclusivity(unchecked) var lastDownloadEmit: ContinuousClock.Instant?
    @exclusivity(unchecked) private var lastUploadEmit: ContinuousClock.Instant?
    @exclusivity(unchecked) var lastDownloadBytes: Int64 = -1
    @exclusivity(unchecked) private var lastUploadBytes: Int64 = -1
    @exclusivity(unchecked) var lastDownloadTotal: Int64?
    @exclusivity(unchecked) private var lastUploadTotal: Int64?

    // Idleness, checked by the loop: when bytes last moved, and whether the transfer is
    // paused because its consumer (or its upload producer) is behind, which is not idleness.
    @exclusivity(unchecked) var lastActivity: ContinuousClock.Instant
    @exclusivity(unchecked) var isWaitingOnConsumer = false
    /// Whether the owner suspended the transfer (`Request.suspend()`): set by the curl loop's
    /// commands; the body callbacks refuse bytes with a pause meanwhile.
    @exclusivity(unchecked) var isSuspended = false

    static let maximumHeaderBytes = 256 << 10
    /// The most a collected body reserves from `Content-Length` before its bytes arrive; a
    /// longer body grows as it comes.
    static let maximumUpfrontReservation = 1 << 20

    init(request: OutgoingRequest, mode: Transfer.Mode, settings: TransferSettings, reportsProgress: Bool) {
        self.request = request
        self.reportsProgress = reportsProgress
        firstRequest = request
        self.mode = mode
        self.settings = settings
        startInstant = .now
        lastActivity = startInstant
    }

    deinit {
        if let headerList { curl_slist_free_all(headerList) }
        upload?.close()
        uploadPump?.stop()
        downloadFile?.discard()
    }

    /// Clears what belongs to one hop before the next is configured.
    func resetHop() {
        if let easy {
            curlew_head_buffer_reset_hop(easy.headBuffer)
            // The count is the handle's, from all its hops: only lines after this count.
            headerLinesSeen = easy.headBuffer.pointee.lines
        }
        finalHead = nil
        tlsConnection = nil
        pendingRedirect = nil
        heldChallenge = nil
        hopCarriesCredentials = false
        hopSendsExpect = false
        body = CollectedBody()
        decoder = nil
        easy?.errorBuffer[0] = 0
    }

    func fail(_ kind: CurlewError.Kind, _ message: String) {
        record(CurlewError(kind, message))
    }

    /// Keeps the first reason a callback gives for aborting, with what is known of the response.
    func record(_ error: CurlewError) {
        if failure == nil { failure = error.adding(url: request.url, head: finalHead?.response) }
    }

    // MARK: Headers

    /// A head's lines, up to its blank line, are in `buffer` (the handle's
    /// ``EasyHandle/headBuffer``, filled by the C header callback, which has counted them
    /// against ``maximumHeaderBytes``). Returns false to abort the transfer. `now` is the
    /// loop's clock (``LoopClock``), read when the loop last woke.
    func handleHead(
        _ buffer: UnsafeMutablePointer<curlew_head_buffer>, transfer: Transfer, at now: ContinuousClock.Instant
    ) -> Bool {
        lastActivity = now
        defer {
            buffer.pointee.count = 0
            // Trailers, and the heads after a redirect's, are counted but no longer kept.
            if headsAreOver { buffer.pointee.passing = 1 }
        }
        if headsAreOver { return true }
        return readHeadLines(buffer, transfer: transfer)
    }

    /// Whether the hop wants no more heads: it has its final head, or a redirect's.
    private var headsAreOver: Bool { finalHead != nil || pendingRedirect != nil }

    /// The lines the C header callback keeps in `buffer`.
    private static func headBytes(_ buffer: UnsafeMutablePointer<curlew_head_buffer>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: buffer.pointee.bytes, count: buffer.pointee.count)
    }

    /// Reading `bytes` with `parser`: a status line replaces a held challenge (libcurl answered
    /// it); a malformed one is recorded as the failure, and nil returned.
    private func read(_ bytes: UnsafeRawBufferPointer, with parser: inout ResponseHeadParser) -> ResponseHeadParser.Reading? {
        let reading = parser.read(bytes)
        if parser.sawStatusLine { heldChallenge = nil }
        if case .malformedStatusLine(let line) = reading {
            fail(.malformedResponse, "malformed status line '\(line)'")
            return nil
        }
        return reading
    }

    /// Parses the lines in `buffer` in order, as they came: a status line starts a head (and
    /// drops a challenge libcurl answered), a blank line ends it (``endOfHead(transfer:)``).
    /// Returns false to abort the transfer.
    private func readHeadLines(_ buffer: UnsafeMutablePointer<curlew_head_buffer>, transfer: Transfer) -> Bool {
        switch read(Self.headBytes(buffer), with: &headParser) {
        case .ended?: return endOfHead(transfer: transfer)
        case .unfinished?: return true
        case .malformedStatusLine?, nil: return false
        }
    }

    /// Counts header lines that arrived since the last look as activity now: the C header
    /// callback counts lines without a clock, so a slow head's lines reach the idle clock at
    /// the loop's next idle check (never earlier than they came).
    func noteHeaderActivity(at now: ContinuousClock.Instant) {
        guard let easy else { return }
        let lines = easy.headBuffer.pointee.lines
        if lines != headerLinesSeen {
            headerLinesSeen = lines
            lastActivity = now
        }
    }

    /// What the C header callback refused, and a head cut off before its blank line, once
    /// libcurl reports the hop done.
    private func finishHeadBuffer(transfer: Transfer) {
        guard let buffer = easy?.headBuffer else { return }
        switch buffer.pointee.refused {
        case 1: fail(.malformedResponse, "the response headers exceed \(Self.maximumHeaderBytes >> 10) KiB")
        case 2: fail(.transport, "out of memory for the response head")
        default: break
        }
        if buffer.pointee.count > 0, !headsAreOver {
            // Its status line still replaces a held challenge; a malformed one is the failure.
            // A parser of its own, so that a held challenge keeps its notes.
            var partial = ResponseHeadParser()
            _ = read(Self.headBytes(buffer), with: &partial)
        }
        buffer.pointee.count = 0
    }

    /// The blank line after a head. Returns false to abort the transfer.
    private func endOfHead(transfer: Transfer) -> Bool {
        let statusCode = headParser.statusCode
        let notes = headParser.notes
        if statusCode == 0 {
            fail(.malformedResponse, "the response has no status line")
            return false
        }
        if statusCode == 101 && request.headerFields[.upgrade] == nil {
            // A protocol switch nobody asked for: what follows is not this request's response.
            fail(.malformedResponse, "the server switched protocols (101) although the request asked for no upgrade")
            return false
        }
        if statusCode < 200 && statusCode != 101 { return true }
        if statusCode == 417, hopSendsExpect {
            // The server refused `Expect: 100-continue`: `complete` sends the hop again without it.
            resendWithoutExpect = true
            retiresHandle = true
            return false
        }
        if statusCode == 407, let proxy = CurlErrorMapping.proxyInUse(context: self) {
            if self.proxy.answersChallenges {
                // libcurl answers the challenge (Digest, NTLM, …) and sends the request again;
                // the 407 is final only if no other head follows (see `acceptFinalHead`).
                heldChallenge = headParser.takeHead()
                return true
            }
            // Only a proxy answers 407: the request never reached its server.
            fail(.proxyFailure, "the proxy \(proxy) requires credentials it was not given or did not accept (407)")
            return false
        }
        if notes.hasInvalidContentLength, !notes.hasTransferEncoding {
            // Without Transfer-Encoding, the length frames the body: a wrong one is unrecoverable.
            fail(.malformedResponse, "the response's Content-Length is not one valid length")
            return false
        }
        // The fields stay bytes; the head is built below only when the transfer reads one.
        let head = headParser.takeHead()
        // Every hop's cookies are stored before the next hop is configured.
        if notes.hasSetCookie, let storage = settings.cookieStorage {
            let fields = head.response.headerFields[values: .setCookie]
            if !fields.isEmpty { storage.storeCookies(setCookieFields: fields, for: request.url) }
        }
        if let hsts = settings.session.hsts { learnStrictTransportSecurity(from: head.response, into: hsts) }
        if easy?.altSvcStage != nil { noteAltSvcField(in: head.response) }
        if notes.hasLocation, RedirectRules.isRedirect(statusCode), let location = head.response.headerFields[.location] {
            switch decideRedirect(head: head.response, location: location) {
            case .follow(var next, var hop):
                if settings.session.requiresHTTPSCheck {
                    do throws(CurlewError) {
                        try HTTPSRequirement.apply(to: &next, hsts: settings.session.hsts, httpsOnly: settings.session.httpsOnly)
                    } catch {
                        if failure == nil { failure = error.adding(url: request.url, head: head.response) }
                        return false
                    }
                }
                pendingRedirect = next
                hop.request = request
                redirects.append(hop)
                return true
            case .deliver:
                break
            case .fail(let error):
                if failure == nil { failure = error }
                return false
            }
        }
        if statusCode == 401 {
            // libcurl keeps a Digest challenge's nonce and realm on the handle even for a hop
            // without credentials; pooled, the handle's next request with credentials (another
            // user's, for another origin) answered that nonce at once. It is not pooled again.
            retiresHandle = true
            if hopCarriesCredentials {
                heldChallenge = head
                return true
            }
        }
        return acceptFinalHead(head, transfer: transfer)
    }

    /// Teaches `hsts` the first `Strict-Transport-Security` field of a hop over HTTPS whose
    /// chain was verified (RFC 6797 §8.1: never over plain HTTP or an unverified connection).
    private func learnStrictTransportSecurity(from head: HTTPResponse, into hsts: HSTSStore) {
        guard let field = head.headerFields[fields: .strictTransportSecurity].first,
            HopURLFacts(of: request).isHTTPS, let host = request.url.host,
            settings.session.trust.policy(forHost: host).policy.validatesChain
        else { return }
        hsts.learn(fromField: field.value, host: host, now: Date())
    }

    private func decideRedirect(head: HTTPResponse, location: String) -> RedirectRules.Decision {
        let policy = settings.redirectPolicy
        if case .none = policy.mode { return .deliver }
        return RedirectRules.decide(
            request: request, head: head, location: location, policy: policy, hopsSoFar: redirects.count)
    }

    private func acceptFinalHead(_ head: ResponseHead, transfer: Transfer) -> Bool {
        if head.statusCode == 407, let proxy = CurlErrorMapping.proxyInUse(context: self) {
            // A held proxy challenge that libcurl did not answer again: the credentials failed.
            fail(.proxyFailure, "the proxy \(proxy) requires credentials it was not given or did not accept (407)")
            return false
        }
        finalHead = head
        // The connection is alive while its head is read: what it was is read now, for the metrics.
        if let easy, HopURLFacts(of: request).isHTTPS {
            tlsConnection = TLSConnectionDetails.read(from: easy.pointer, certificates: settings.session.capturesPeerCertificates)
                .map(TLSConnectionBox.init)
        }
        let notes = headParser.notes
        // Content codings when the session decodes them; transfer codings other than chunked
        // always, since they are not part of the representation (libcurl passes them on coded).
        let decodesContent = settings.automaticDecompression && notes.hasContentEncoding
        if decodesContent || notes.hasTransferCoding {
            let fields = head.response.headerFields
            do {
                decoder = try ContentDecoder(
                    contentEncoding: decodesContent ? fields[.contentEncoding] : nil,
                    transferEncoding: notes.hasTransferCoding ? fields[.transferEncoding] : nil,
                    limit: settings.decompressionLimit)
            } catch {
                record(error)
                return false
            }
        }
        let declaredLength = notes.contentLength
        switch mode {
        case .collect:
            if let declaredLength, decoder == nil {
                if declaredLength > settings.maximumBodySize {
                    fail(.bodyTooLarge, "the body of \(declaredLength) bytes exceeds the maximum of \(settings.maximumBodySize) bytes")
                    return false
                }
                // A bounded reservation: the length is the server's claim, not bytes that arrived.
                body.reserve(min(declaredLength, Self.maximumUpfrontReservation))
            }
        case .stream:
            break
        case .download(let destination, let options, let resume):
            let response = head.response
            let name = SuggestedFilename.from(head: response, url: request.url)
            let target = destination.resolve(suggestedFilename: name, head: response, resuming: resume)
            do {
                let delivered = try openDownloadFile(head: response, target: target, options: options, resume: resume)
                let deliveredHead = delivered == response ? head : ResponseHead(delivered)
                finalHead = deliveredHead
                transfer.deliverHead(deliveredHead)
                emitResumedProgress(transfer: transfer)
                return true
            } catch {
                failure = error.adding(url: request.url, head: response)
                return false
            }
        }
        transfer.deliverHead(head)
        return true
    }

    // MARK: Body

    func handleBody(_ bytes: UnsafeRawBufferPointer, transfer: Transfer, at now: ContinuousClock.Instant) -> Int {
        if isSuspended { return Int(curlew_CURL_WRITEFUNC_PAUSE) }
        lastActivity = now
        // libcurl passes no body of a challenge it answers: a held 401 with a body is final.
        if let held = heldChallenge, finalHead == nil, pendingRedirect == nil {
            heldChallenge = nil
            guard acceptFinalHead(held, transfer: transfer) else { return 0 }
        }
        if pendingRedirect != nil || finalHead == nil { return bytes.count }
        if let decoder { return handleCodedBody(bytes, decoder: decoder, transfer: transfer) }
        if case .stream = mode {
            let taken = transfer.deliverChunk(bytes)
            if taken == Int(curlew_CURL_WRITEFUNC_PAUSE) { isWaitingOnConsumer = true }
            return taken
        }
        do {
            try keep(bytes)
            return bytes.count
        } catch {
            record(error)
            return 0
        }
    }

    /// A piece of a content-coded body: decoded whole, or refused with a pause before any of
    /// it is decoded (a decoder cannot give bytes back to libcurl).
    private func handleCodedBody(_ bytes: UnsafeRawBufferPointer, decoder: ContentDecoder, transfer: Transfer) -> Int {
        let isStream: Bool
        if case .stream = mode {
            switch transfer.reserveRoomForChunk() {
            case .pause:
                isWaitingOnConsumer = true
                return Int(curlew_CURL_WRITEFUNC_PAUSE)
            case .abort: return 0
            case .buffered, .deliver: break
            }
            isStream = true
        } else {
            isStream = false
        }
        var decoded = Data()
        do {
            try decoder.decode(bytes) { (piece: UnsafeRawBufferPointer) throws(CurlewError) in
                if isStream { decoded.append(piece.assumingMemoryBound(to: UInt8.self)) } else { try keep(piece) }
            }
        } catch {
            record(error)
            return 0
        }
        if !decoded.isEmpty && transfer.deliverChunk(decoded, evenIfFull: true) == 0 { return 0 }
        return bytes.count
    }

    /// Keeps a piece of a collected or downloaded body (decoded, if it was coded).
    private func keep(_ piece: UnsafeRawBufferPointer) throws(CurlewError) {
        switch mode {
        case .collect:
            if body.count + piece.count > settings.maximumBodySize {
                throw CurlewError(.bodyTooLarge, "the body exceeds the maximum of \(settings.maximumBodySize) bytes")
            }
            guard body.append(piece) else {
                throw CurlewError(.bodyTooLarge, "out of memory for a body of \(body.count + piece.count) bytes")
            }
        case .download:
            guard let downloadFile else {
                throw CurlewError(.fileSystem, "internal: a download body arrived without its file")
            }
            try downloadFile.write(piece)
        case .stream:
            throw CurlewError(.transport, "internal: a streamed body reached the collecting path")
        }
    }

    // MARK: Progress

    func handleProgress(downloadTotal: Int64, downloadNow: Int64, uploadTotal: Int64, uploadNow: Int64, transfer: Transfer) {
        // Asked first: without a listener, reading the clock is the cost of this call.
        guard let events = transfer.events, events.hasListeners else { return }
        let now = ContinuousClock.now
        if uploadNow != lastUploadBytes, uploadNow > 0,
            lastUploadEmit.map({ now - $0 >= settings.progressInterval }) ?? true
        {
            lastUploadEmit = now
            lastUploadBytes = uploadNow
            lastUploadTotal = uploadTotal > 0 ? uploadTotal : request.body?.length
            events.emit(.uploadProgress(progress(uploadNow, total: lastUploadTotal, at: now)))
        }
        if finalHead != nil, downloadNow != lastDownloadBytes,
            lastDownloadEmit.map({ now - $0 >= settings.progressInterval }) ?? true
        {
            lastDownloadEmit = now
            lastDownloadBytes = downloadNow
            lastDownloadTotal = downloadTotal > 0 ? downloadTotal + progressOffset : nil
            events.emit(.downloadProgress(progress(downloadNow + progressOffset, total: lastDownloadTotal, at: now)))
        }
    }

    func progress(_ done: Int64, total: Int64?, at now: ContinuousClock.Instant) -> TransferProgress {
        let elapsed = now - startInstant
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return TransferProgress(
            completedBytes: done, totalBytes: total, bytesPerSecond: seconds > 0 ? Double(done) / seconds : 0,
            elapsed: elapsed)
    }

    // MARK: Completion

    enum Completion {
        case finished(Result<TransferOutcome, CurlewError>)
        /// Send this request next, on a fresh configuration of the handle.
        case redirect
    }

    /// Called on the curl thread when libcurl reports the hop done, before the handle is
    /// removed from the multi handle.
    func complete(code: CURLcode, transfer: Transfer) -> Completion {
        guard let handle else {
            return .finished(.failure(CurlewError(.transport, "internal: transfer without a handle", url: request.url)))
        }
        return complete(code: code, transfer: transfer, metrics: TransferMetrics(handle: handle))
    }

    /// ``complete(code:transfer:)`` with the hop's metrics measured already (libcurl's, or a
    /// stub's: see ``StubTransferDriver``). The hop still has its easy handle.
    func complete(code: CURLcode, transfer: Transfer, metrics: TransferMetrics) -> Completion {
        finishHeadBuffer(transfer: transfer)
        if resendWithoutExpect { return resendingWithoutExpect() }
        if code != CURLE_OK, failure == nil, finalHead == nil, heldChallenge == nil,
            let fallback = fallingBackFromAlternative(code: code)
        { return fallback }
        var metrics = metrics
        if let tlsConnection { metrics.tlsBox = tlsConnection }
        if let held = heldChallenge, finalHead == nil, code == CURLE_OK, failure == nil {
            heldChallenge = nil
            _ = acceptFinalHead(held, transfer: transfer)  // A failure is recorded and reported below.
        }
        if pendingRedirect == nil || code != CURLE_OK { uploadPump?.stop() }
        if code == CURLE_OK, failure == nil, pendingRedirect == nil, let decoder {
            // libcurl saw the whole message; the coded stream inside it must have ended too.
            do throws(CurlewError) { try decoder.finish() } catch { record(error) }
        }
        if code == CURLE_OK, failure == nil, pendingRedirect == nil, downloadFile != nil { checkDownloadLength() }
        if code == CURLE_OK, failure == nil {
            if let next = pendingRedirect {
                if !redirects.isEmpty { redirects[redirects.count - 1].metrics = metrics }
                request = next
                return .redirect
            }
            guard let head = finalHead else {
                return .finished(.failure(CurlewError(.malformedResponse, "the server sent no response head", url: request.url)))
            }
            let onDisk = downloadFile?.bytesOnDisk
            let pending = downloadFile?.finishWriting()
            downloadFile = nil
            // A resumed file counts what it had; otherwise bytes received, as libcurl counts them.
            emitFinalProgress(metrics: metrics, downloaded: progressOffset > 0 ? onDisk : nil, transfer: transfer)
            let outcome = TransferOutcome(
                request: request, responseHead: head, body: body.take(), pendingDownload: pending,
                metrics: metrics, redirects: redirects)
            return .finished(.success(outcome))
        }
        let resumeData = resumeDataAfterFailure()
        downloadFile?.discard()
        downloadFile = nil
        var error = failure ?? CurlErrorMapping.error(
            for: code, message: String(cString: errorBuffer), context: self, metrics: metrics)
        if let resumeData { error = error.with(downloadResumeData: resumeData) }
        let collected: Data? = if case .collect = mode, !body.isEmpty { body.take() } else { nil }
        return .finished(.failure(error.adding(url: request.url, head: (finalHead ?? heldChallenge)?.response, body: collected)))
    }

    /// The hop again, without `Expect: 100-continue`, after the server refused it with 417 (see
    /// ``ExpectContinue``). A body none of which went out is sent as it is — a stream's pump is
    /// kept; one that had begun is read again, unless it is a one-shot stream.
    private func resendingWithoutExpect() -> Completion {
        resendWithoutExpect = false
        expectRefused = true
        request.headerFields[.expect] = nil
        if bodyStarted, let body = request.body, !body.isReplayable {
            uploadPump?.stop()
            return .finished(.failure(CurlewError(
                .bodyNotReplayable,
                "the server refused Expect: 100-continue (417) after part of the one-shot stream body had gone out, so it cannot be sent again; build the body with a factory (RequestBody.stream(length:_:)) to allow this",
                url: request.url)))
        }
        keepsUnsentPump = !bodyStarted
        return .redirect
    }

    /// The final 100 % of each direction, unless the last throttled event already said so.
    private func emitFinalProgress(metrics: TransferMetrics, downloaded: Int64?, transfer: Transfer) {
        // Asked first: without a listener, reading the clock is the cost of this call.
        guard let events = transfer.events, events.hasListeners else { return }
        let now = ContinuousClock.now
        if let length = request.body?.length, length > 0 || metrics.bytesSent > 0 {
            let sent = max(metrics.bytesSent, length)
            if lastUploadBytes != sent || lastUploadTotal != sent {
                events.emit(.uploadProgress(progress(sent, total: sent, at: now)))
            }
        }
        let received = downloaded ?? max(metrics.bytesReceived, Int64(body.count))
        if lastDownloadBytes != received || lastDownloadTotal != received {
            events.emit(.downloadProgress(progress(received, total: received, at: now)))
        }
    }

    // MARK: Idleness and abandonment

    /// Restarts the idle clock: a hop starts, or the loop resumes a paused transfer. `now` is
    /// the loop's clock (``LoopClock``).
    func markActive(at now: ContinuousClock.Instant) {
        isWaitingOnConsumer = false
        lastActivity = now
    }

    /// Whether the request has gone out, so silence now means the server is idle (a transfer
    /// still queued for a connection, or connecting, is not idle).
    var hasSentRequest: Bool {
        guard let handle else { return false }
        var pretransfer: curl_off_t = 0
        _ = curlew_easy_getinfo_off_t(handle, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
        return pretransfer > 0
    }

    /// Gives the transfer up without libcurl's verdict (cancelled, idle, shut down): stops the
    /// upload pump, removes a partial download, and returns `error` with what is known.
    func abandon(with error: CurlewError) -> CurlewError {
        uploadPump?.stop()
        let resumeData = keepsPartialDownload(after: error) ? downloadFile?.keepForResuming(request: request) : nil
        downloadFile?.discard()
        downloadFile = nil
        let abandoned = error.adding(url: request.url, head: finalHead?.response)
        return resumeData.map { abandoned.with(downloadResumeData: $0) } ?? abandoned
    }
}
