import Foundation
import HTTPTypes

extension RequestCore {
    /// One attempt's transfer through the session's cache: serves, revalidates, loads and
    /// stores as RFC 9111 and the request's ``CachePolicy`` say. `network` runs the transfer.
    func cachedOutcome(
        of request: OutgoingRequest, mode: Transfer.Mode, cache: HTTPCache,
        network: (OutgoingRequest) async throws(CurlewError) -> TransferOutcome
    ) async throws(CurlewError) -> TransferOutcome {
        let method = request.method
        guard method == .get || method == .head else {
            let outcome = try await network(request)
            if !CacheRules.isSafe(method), outcome.head.status.code < 400 {
                for key in CacheRules.invalidatedKeys(request: request, head: outcome.head) { cache.invalidate(resource: key) }
            }
            return outcome
        }
        if mode.isResuming || CacheRules.bypasses(request) { return try await network(request) }
        let requestControl = CacheControl(request.headerFields)
        let policy = request.options.cachePolicy ?? .useProtocolPolicy
        let key = cacheKey(of: request, cache: cache)
        // A waiter looks again in its own partition only, so it never gets another user's response.
        var mayWait = method == .get && policy != .reloadIgnoringCache
        var attemptsLeft = 3
        while true {
            attemptsLeft -= 1
            let decision = CacheRules.decide(
                entry: cache.lookup(key), request: request, requestControl: requestControl, policy: policy, now: cache.now())
            switch decision {
            case .serve(let entry, let status):
                if let outcome = try served(entry, request: request, mode: mode, status: status, cache: cache) {
                    cache.record(status)
                    return outcome
                }
                if attemptsLeft > 0 { continue }
            case .serveAndRevalidate(let entry):
                if let outcome = try served(entry, request: request, mode: mode, status: .stale, cache: cache) {
                    cache.record(.stale)
                    revalidateInBackground(entry, request: request, key: key, cache: cache)
                    return outcome
                }
                if attemptsLeft > 0 { continue }
            case .unavailable:
                throw CurlewError(
                    .notCached, "no stored response may answer this request, and its cache policy forbids the network",
                    url: request.url)
            case .load(let entry):
                if mayWait {
                    mayWait = false
                    guard await cache.leadOrWait(key.stored) else { continue }
                    do {
                        let outcome = try await load(
                            request, key: key, entry: entry, mode: mode, cache: cache, requestControl: requestControl, network: network)
                        cache.finishLoad(key.stored)
                        return outcome
                    } catch {
                        cache.finishLoad(key.stored)
                        throw error
                    }
                }
                return try await load(
                    request, key: key, entry: entry, mode: mode, cache: cache, requestControl: requestControl, network: network)
            }
            return try await load(
                request, key: key, entry: nil, mode: mode, cache: cache, requestControl: requestControl, network: network)
        }
    }

    /// A fresh stored response for a `bytes` stream of `request` (only a fresh one, or any age
    /// under the policies that allow it: a stream is not revalidated or stored), or nil.
    func cachedStream(for request: OutgoingRequest, cache: HTTPCache) -> CachedBodyStream? {
        guard request.method == .get, !CacheRules.bypasses(request) else { return nil }
        let policy = request.options.cachePolicy ?? .useProtocolPolicy
        let key = cacheKey(of: request, cache: cache)
        let decision = CacheRules.decide(
            entry: cache.lookup(key), request: request, requestControl: CacheControl(request.headerFields), policy: policy,
            now: cache.now())
        guard case .serve(let entry, let status) = decision else { return nil }
        guard let stream = CachedBodyStream(entry: entry) else {
            cache.drop(entry)
            return nil
        }
        cache.record(status)
        events.emit(.response(stream.head))
        return stream
    }

    /// The key `request` is stored and looked up under: partitioned by the credentials and
    /// cookies the session and the request attach (see ``CacheIdentity``).
    private func cacheKey(of request: OutgoingRequest, cache: HTTPCache) -> CacheKey {
        cache.key(for: request, session: session.transferSettings, trust: session.configuration.trust)
    }

    /// Goes to the network (conditionally when `entry` has validators), then stores the
    /// response under `key`, or applies a `304` to the entry, or falls back to it under
    /// `stale-if-error`.
    private func load(
        _ request: OutgoingRequest, key: CacheKey, entry: CacheEntry?, mode: Transfer.Mode, cache: HTTPCache,
        requestControl: CacheControl,
        network: (OutgoingRequest) async throws(CurlewError) -> TransferOutcome
    ) async throws(CurlewError) -> TransferOutcome {
        let conditional = request.method == .get ? entry.flatMap { CacheRules.conditional(request, for: $0) } : nil
        let requestTime = cache.now()
        let outcome: TransferOutcome
        do {
            outcome = try await network(conditional ?? request)
        } catch {
            if let entry, ![.cancelled, .taskCancelled, .sessionShutdown].contains(error.kind),
                CacheRules.staleIfErrorAllows(entry, requestControl: requestControl, now: cache.now()),
                let stale = try served(entry, request: request, mode: mode, status: .stale, cache: cache)
            {
                cache.record(.stale)
                return stale
            }
            throw error
        }
        let responseTime = cache.now()
        let status = outcome.head.status.code
        if status == 304, let entry, conditional != nil {
            outcome.pendingDownload?.discard()
            let updated = cache.update(entry, with: outcome.head, for: request, requestTime: requestTime, responseTime: responseTime)
            if let served = try served(updated, request: request, mode: mode, status: .revalidated, cache: cache, metrics: outcome.metrics) {
                cache.record(.revalidated)
                return served
            }
            // The stored body was damaged: load it afresh.
            return try await load(
                request, key: key, entry: nil, mode: mode, cache: cache, requestControl: requestControl, network: network)
        }
        if let entry, CacheRules.isServerError(status),
            CacheRules.staleIfErrorAllows(entry, requestControl: requestControl, now: responseTime),
            let stale = try served(entry, request: request, mode: mode, status: .stale, cache: cache)
        {
            outcome.pendingDownload?.discard()
            cache.record(.stale)
            return stale
        }
        if request.method == .get {
            cache.store(
                outcome, for: request, key: key, requestControl: requestControl, requestTime: requestTime, responseTime: responseTime)
        }
        cache.record(.miss)
        var metrics = outcome.metrics
        metrics.cacheStatus = .miss
        return TransferOutcome(
            request: outcome.request, head: outcome.head, body: outcome.body,
            pendingDownload: outcome.pendingDownload, metrics: metrics, redirects: outcome.redirects)
    }

    /// An outcome made from a stored entry, or nil when its body cannot be read back (the
    /// entry is then dropped). A download gets the body copied, in chunks, to its destination's
    /// temporary file.
    private func served(
        _ entry: CacheEntry, request: OutgoingRequest, mode: Transfer.Mode, status: CacheStatus, cache: HTTPCache,
        metrics network: TransferMetrics = .zero
    ) throws(CurlewError) -> TransferOutcome? {
        let head = entry.head.response
        var metrics = network
        metrics.cacheStatus = status
        var body = Data()
        var pending: PendingDownload?
        var writeFailure: CurlewError?
        do throws(CurlewError) {
            switch mode {
            case .collect:
                if request.method == .get { body = try CachedBodyReader.data(of: entry) }
            case .download(let destination, let options, _):
                let url = destination.resolve(suggestedFilename: SuggestedFilename.from(head: head, url: request.url), head: head)
                let file: DownloadFile
                do throws(CurlewError) {
                    file = try DownloadFile(destination: url, options: options)
                } catch {
                    writeFailure = error
                    throw error
                }
                do throws(CurlewError) {
                    if request.method == .get {
                        try CachedBodyReader.forEachChunk(of: entry) { (bytes: UnsafeRawBufferPointer) throws(CurlewError) in
                            do throws(CurlewError) { try file.write(bytes) } catch {
                                writeFailure = error
                                throw error
                            }
                        }
                    }
                } catch {
                    file.discard()
                    throw error
                }
                pending = file.finishWriting()
            case .stream:
                return nil
            }
        } catch {
            if let writeFailure { throw writeFailure.adding(url: request.url, head: head) }
            cache.drop(entry)
            return nil
        }
        events.emit(.response(head))
        return TransferOutcome(
            request: request, head: head, body: body, pendingDownload: pending, metrics: metrics, redirects: [])
    }

    /// Revalidates a stale entry served under `stale-while-revalidate`, outside this request:
    /// no events, no interceptors, and the result only updates the cache.
    private func revalidateInBackground(_ entry: CacheEntry, request: OutgoingRequest, key: CacheKey, cache: HTTPCache) {
        let session = session
        cache.runInBackground {
            let sent = CacheRules.conditional(request, for: entry) ?? request
            let transfer = Transfer(
                request: sent, mode: .collect,
                settings: session.transferSettings(for: request.options), reportsProgress: false, events: nil,
                loop: session.loop)
            let requestTime = cache.now()
            guard let outcome = try? await transfer.outcome() else { return }
            let responseTime = cache.now()
            if outcome.head.status.code == 304, sent.headerFields[.ifNoneMatch] != nil || sent.headerFields[.ifModifiedSince] != nil {
                _ = cache.update(entry, with: outcome.head, for: request, requestTime: requestTime, responseTime: responseTime)
            } else {
                cache.store(
                    outcome, for: request, key: key, requestControl: CacheControl(request.headerFields), requestTime: requestTime,
                    responseTime: responseTime)
            }
        }
    }
}
