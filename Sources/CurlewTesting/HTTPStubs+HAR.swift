import Curlew
import Foundation
import HTTPTypes

extension HTTPStubs {
    /// Registers a stub for every exchange of `archive` that got a response, so that a
    /// session answers as the recorded server did: each method and URL answers its recorded
    /// responses in the order they were recorded (the last one repeats), redirect hops
    /// included, since Curlew follows their `Location` to the next recorded URL.
    ///
    /// - A request matches an entry by method and URL. A query value the recording redacted
    ///   (`***`, as Curlew prints secrets) matches any value, so a request that carries the
    ///   real secret still finds its entry; a recorded request body, when there is one, must
    ///   be the request's body (unless it was redacted).
    /// - The response's status, header fields and body are replayed. `Content-Length`,
    ///   `Content-Encoding` and `Transfer-Encoding` are dropped: HAR keeps the body decoded, and
    ///   the stub frames it anew. Entries without a response (status 0, a failure) are skipped.
    /// - Bodies come back only if the recording kept them (`HARRecorder.Options.recordsResponseBodies`);
    ///   a body recorded as `***` or cut at the recorder's size limit is replayed as recorded.
    ///
    /// Returns the registrations, in the order of the archive's first entry for each.
    @discardableResult
    public func register(replaying archive: HARArchive) throws(CurlewError) -> [StubRegistration] {
        var order: [String] = []
        var grouped: [String: (request: HARRequest, responses: [StubResponse])] = [:]
        for (index, entry) in archive.log.entries.enumerated() where entry.response.status > 0 {
            let key = entry.request.method.uppercased() + " " + entry.request.url + " " + (entry.request.postData?.text ?? "")
            let response = try Self.stubResponse(for: entry.response, entry: index)
            if grouped[key] == nil {
                order.append(key)
                grouped[key] = (entry.request, [response])
            } else {
                grouped[key]?.responses.append(response)
            }
        }
        return order.compactMap { key in
            guard let group = grouped[key] else { return nil }
            return register(Self.matcher(for: group.request), responses: group.responses)
        }
    }

    /// Stubs that answer from the HAR file at `fileURL` (see ``register(replaying:)``); a file
    /// that is not HAR fails with `CurlewError.Kind.serializationFailed` naming what is wrong.
    public convenience init(replaying fileURL: URL) throws(CurlewError) {
        self.init()
        try register(replaying: HARArchive(contentsOf: fileURL))
    }

    /// The placeholder Curlew writes for a secret in printed and recorded requests.
    static let redactedValue = "***"

    /// Method, and URL with redacted query values as wildcards, and the body when one was recorded.
    static func matcher(for recorded: HARRequest) -> RequestMatcher {
        let method = recorded.method.uppercased()
        let recordedURL = URLComponents(string: recorded.url)
        let body: Data? = recorded.postData.flatMap { postData in
            guard !postData.text.isEmpty, postData.text != redactedValue, !postData.text.contains(redactedValue) else { return nil }
            if postData.encoding == "base64" { return Data(base64Encoded: postData.text) }
            return Data(postData.text.utf8)
        }
        return RequestMatcher("\(method) \(recorded.url) (from HAR)") { request in
            guard request.method.uppercased() == method, let recordedURL,
                let actual = URLComponents(url: request.url, resolvingAgainstBaseURL: false),
                sameURL(recordedURL, actual)
            else { return false }
            if let body { return request.body == body }
            return true
        }
    }

    /// Whether `actual` is the recorded URL, a redacted query value matching any value.
    static func sameURL(_ recorded: URLComponents, _ actual: URLComponents) -> Bool {
        guard recorded.scheme?.lowercased() == actual.scheme?.lowercased(),
            recorded.host?.lowercased() == actual.host?.lowercased(),
            recorded.port == actual.port, recorded.percentEncodedPath == actual.percentEncodedPath
        else { return false }
        let recordedItems = recorded.queryItems ?? []
        let actualItems = actual.queryItems ?? []
        guard recordedItems.count == actualItems.count else { return false }
        for (mine, theirs) in zip(recordedItems, actualItems) {
            guard mine.name == theirs.name else { return false }
            if mine.value != redactedValue && mine.value != theirs.value { return false }
        }
        return true
    }

    /// The stub response for a recorded one; a body that claims base64 but is not fails.
    static func stubResponse(for recorded: HARResponse, entry: Int) throws(CurlewError) -> StubResponse {
        let framing: Set<String> = ["content-length", "content-encoding", "transfer-encoding"]
        let headers = recorded.headers
            .filter { !framing.contains($0.name.lowercased()) }
            .map { StubHeader($0.name, $0.value) }
        var body = Data()
        if let text = recorded.content.text {
            if recorded.content.encoding == "base64" {
                guard let decoded = Data(base64Encoded: text) else {
                    throw CurlewError(
                        .serializationFailed, "log.entries[\(entry)].response.content.text is not base64 although its encoding says so")
                }
                body = decoded
            } else {
                body = Data(text.utf8)
            }
        }
        return StubResponse(status: recorded.status, headers: headers, body: body)
    }
}
