import Foundation
import HTTPTypes

/// Turns what ``HARRecorder`` saw of an attempt into HAR entries, secrets redacted by
/// ``Redaction`` as in `cURLDescription()`.
struct HAREntryBuilder {
    let options: HARRecorder.Options

    // MARK: Entries

    /// One entry per redirect hop, then the final response's.
    func entries(started: Date, request original: OutgoingRequest, completion: TransferCompletion) -> [HAREntry] {
        var entries: [HAREntry] = []
        var start = started
        for hop in completion.redirects {
            var sent = hop.request ?? original
            if hop.request == nil { sent.url = hop.from }
            let timings = Self.timings(hop.metrics)
            let version = Self.versionText(hop.metrics?.httpVersion)
            entries.append(HAREntry(
                startedDateTime: start, time: timings.total, request: request(sent, httpVersion: version),
                response: response(
                    hop.response, httpVersion: version, body: nil, wireBytes: hop.metrics?.bytesReceived,
                    redirectURL: Self.redactedURLText(hop.to)),
                timings: timings, serverIPAddress: hop.metrics?.remoteAddress))
            start += (hop.metrics?.total).map { $0.inSeconds } ?? 0
        }
        var sent = completion.request ?? original
        if completion.request == nil { sent.url = completion.url }
        let metrics = completion.metrics
        let timings = Self.timings(metrics)
        let version = Self.versionText(metrics.httpVersion)
        entries.append(HAREntry(
            startedDateTime: start, time: timings.total, request: request(sent, httpVersion: version),
            response: response(
                completion.head, httpVersion: version, body: completion.body, wireBytes: metrics.bytesReceived,
                redirectURL: completion.head.headerFields[.location].map(Redaction.string) ?? ""),
            timings: timings, serverIPAddress: metrics.remoteAddress))
        return entries
    }

    /// The entry of an attempt that failed: its response when one arrived, else status 0; the
    /// reason in `_error`.
    func failedEntry(started: Date, request sent: OutgoingRequest, metrics: TransferMetrics?, error: CurlewError) -> HAREntry {
        let timings = Self.timings(metrics)
        let version = Self.versionText(metrics?.httpVersion)
        var sent = sent
        if let url = error.url, url.absoluteString != Redaction.string(sent.url) { sent.url = url }
        let answer: HARResponse
        if let head = error.responseHead {
            answer = response(
                head, httpVersion: version, body: error.responseBody, wireBytes: metrics?.bytesReceived,
                redirectURL: head.headerFields[.location].map(Redaction.string) ?? "")
        } else {
            answer = HARResponse(
                status: 0, statusText: "", httpVersion: "", content: HARContent(size: 0, mimeType: ""), bodySize: 0)
        }
        return HAREntry(
            startedDateTime: started, time: timings.total, request: request(sent, httpVersion: version),
            response: answer, timings: timings, serverIPAddress: metrics?.remoteAddress,
            error: "\(error.kind): \(error.message)")
    }

    // MARK: Request and response

    func request(_ sent: OutgoingRequest, httpVersion: String) -> HARRequest {
        let url = Self.redactedURLText(sent.url)
        let query = URLComponents(string: url)?.queryItems ?? []
        var recorded = HARRequest(
            method: sent.method.rawValue, url: url, httpVersion: httpVersion,
            cookies: Self.requestCookies(sent.headerFields[values: .cookie]),
            headers: Self.headers(sent.headerFields),
            queryString: query.map { HARQueryParameter(name: $0.name, value: $0.value ?? "") },
            bodySize: sent.body.map { $0.length.map(Int.init) ?? -1 } ?? 0)
        guard let body = sent.body else { return recorded }
        let mimeType = sent.headerFields[.contentType] ?? ""
        switch body.storage {
        case .data(let data) where options.recordsRequestBodies:
            let kept = recordedBody(data, contentType: sent.headerFields[.contentType])
            recorded.postData = HARPostData(mimeType: mimeType, text: kept.text, encoding: kept.encoding, comment: kept.comment)
        case .data:
            recorded.comment = "the body was not recorded (HARRecorder.Options.recordsRequestBodies)"
        case .file, .stream:
            recorded.comment = "the body, from a file or a stream, was not recorded"
        }
        return recorded
    }

    func response(
        _ head: HTTPResponse, httpVersion: String, body: Data?, wireBytes: Int64?, redirectURL: String
    ) -> HARResponse {
        let mimeType = head.headerFields[.contentType] ?? ""
        var content = HARContent(size: body?.count ?? Int(wireBytes ?? 0), mimeType: mimeType)
        if let body, let wireBytes, Int64(body.count) > wireBytes { content.compression = body.count - Int(wireBytes) }
        if let body, options.recordsResponseBodies, !body.isEmpty {
            let kept = recordedBody(body, contentType: head.headerFields[.contentType])
            content.text = kept.text
            content.encoding = kept.encoding
            content.comment = kept.comment
        }
        return HARResponse(
            status: head.status.code, statusText: head.status.reasonPhrase, httpVersion: httpVersion,
            cookies: Self.responseCookies(head.headerFields[values: .setCookie]), headers: Self.headers(head.headerFields),
            content: content, redirectURL: redirectURL, bodySize: wireBytes.map(Int.init) ?? -1)
    }

    /// A body as HAR keeps it: secret fields redacted, cut to ``HARRecorder/Options/maximumBodySize``,
    /// as text when it is UTF-8 and as base64 otherwise.
    func recordedBody(_ data: Data, contentType: String?) -> (text: String, encoding: String?, comment: String?) {
        let redacted = Redaction.body(
            data, contentType: contentType, secrets: Redaction.secretFieldNames, placeholder: Redaction.placeholder)
        let limit = max(options.maximumBodySize, 0)
        let kept = redacted.prefix(limit)
        let comment = redacted.count > limit ? "the body was cut to \(limit) of its \(redacted.count) bytes" : nil
        if let text = String(data: kept, encoding: .utf8), !text.utf8.contains(0) {
            return (text, nil, comment)
        }
        return (kept.base64EncodedString(), "base64", comment)
    }

    // MARK: Parts

    static func headers(_ fields: HTTPFields) -> [HARHeader] {
        fields.map { HARHeader(name: $0.name.rawName, value: Redaction.headerValue($0)) }
    }

    /// The cookies of `Cookie` fields, by name; their values are credentials.
    static func requestCookies(_ fields: [String]) -> [HARCookie] {
        fields.flatMap { $0.split(separator: ";") }.compactMap { pair in
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespaces)
            return name.isEmpty ? nil : HARCookie(name: name, value: Redaction.placeholder)
        }
    }

    /// The cookies of `Set-Cookie` fields, with their attributes; their values are credentials.
    static func responseCookies(_ fields: [String]) -> [HARCookie] {
        fields.compactMap { field in
            let parts = field.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = parts.first, let equals = first.firstIndex(of: "="), equals != first.startIndex else {
                return nil
            }
            var cookie = HARCookie(name: String(first[..<equals]), value: Redaction.placeholder)
            for attribute in parts.dropFirst() {
                let pieces = attribute.split(separator: "=", maxSplits: 1).map(String.init)
                let value = pieces.count > 1 ? pieces[1] : ""
                switch pieces[0].lowercased() {
                case "path": cookie.path = value
                case "domain": cookie.domain = value
                case "httponly": cookie.httpOnly = true
                case "secure": cookie.secure = true
                default: break
                }
            }
            return cookie
        }
    }

    /// The URL without its fragment (HAR leaves it out), secrets redacted.
    static func redactedURLText(_ url: URL) -> String {
        let text = url.absoluteString
        let withoutFragment = text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
        return Redaction.string(withoutFragment)
    }

    static func versionText(_ version: HTTPVersion?) -> String {
        guard let version, version != .unknown else { return "" }
        return version.rawValue
    }

    /// HAR's phases from libcurl's cumulative times: `dns` until the name was resolved,
    /// `connect` until the connection (TLS included) was ready, `ssl` the TLS part of it,
    /// `wait` until the first byte, `receive` the rest. On a reused connection `dns`,
    /// `connect` and `ssl` are -1; `send` is 0 (libcurl's times do not separate it from
    /// `wait`), `blocked` -1. The phases add up to the transfer's total.
    static func timings(_ metrics: TransferMetrics?) -> HARTimings {
        guard let metrics else { return HARTimings(send: 0, wait: 0, receive: 0) }
        func milliseconds(_ duration: Duration) -> Double { max(duration.inSeconds * 1000, 0) }
        let dnsEnd = milliseconds(metrics.dnsLookup)
        let connectEnd = max(milliseconds(metrics.connect), dnsEnd)
        let tlsEnd = milliseconds(metrics.tlsHandshake)
        let firstByte = milliseconds(metrics.timeToFirstByte)
        let total = milliseconds(metrics.total)
        var timings = HARTimings(send: 0, wait: 0, receive: 0)
        let connectionReady: Double
        if metrics.connectionReused {
            connectionReady = 0
        } else {
            connectionReady = max(tlsEnd, connectEnd)
            timings.dns = dnsEnd
            timings.connect = connectionReady - dnsEnd
            timings.ssl = tlsEnd > 0 ? max(tlsEnd - connectEnd, 0) : -1
        }
        let firstByteAt = max(firstByte, connectionReady)
        timings.wait = firstByteAt - connectionReady
        timings.receive = max(total - firstByteAt, 0)
        return timings
    }
}
