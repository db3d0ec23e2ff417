import Foundation
import HTTPTypes

/// What a successful transfer produced, before validation and serialization.
///
/// Immutable and shared: an outcome passes through results, continuations and the pipeline's
/// stages, and a class keeps each of those copies to one reference.
final class TransferOutcome: Sendable {
    /// The request of the last hop.
    let request: OutgoingRequest
    /// The URL of the last hop, parsed on first read (see ``OutgoingRequest/urlText``).
    var url: URL { request.url }
    /// The final head, built on first access (see ``ResponseHead``).
    let responseHead: ResponseHead
    /// The final head; reading it builds it.
    var head: HTTPResponse { responseHead.response }
    /// The collected body; empty in stream and download modes.
    let body: Data
    /// The destination file, for downloads (where the file is once ``pendingDownload`` is
    /// committed).
    let fileURL: URL?
    /// For downloads: the file under its temporary name, until the pipeline accepts the
    /// response and commits it, or rejects it and discards it.
    let pendingDownload: PendingDownload?
    let metrics: TransferMetrics
    let redirects: [RedirectHop]

    convenience init(
        request: OutgoingRequest, head: HTTPResponse, body: Data, pendingDownload: PendingDownload? = nil,
        metrics: TransferMetrics, redirects: [RedirectHop]
    ) {
        self.init(
            request: request, responseHead: ResponseHead(head), body: body, pendingDownload: pendingDownload,
            metrics: metrics, redirects: redirects)
    }

    init(
        request: OutgoingRequest, responseHead: ResponseHead, body: Data,
        pendingDownload: PendingDownload? = nil, metrics: TransferMetrics, redirects: [RedirectHop]
    ) {
        self.pendingDownload = pendingDownload
        self.request = request
        self.responseHead = responseHead
        self.body = body
        fileURL = pendingDownload?.destination
        self.metrics = metrics
        self.redirects = redirects
    }

    /// The same outcome with the head and body a response interceptor made.
    func replacing(head: ResponseHead, body: Data) -> TransferOutcome {
        TransferOutcome(
            request: request, responseHead: head, body: body, pendingDownload: pendingDownload,
            metrics: metrics, redirects: redirects)
    }
}

extension TransferCompletion {
    init(_ outcome: TransferOutcome) {
        self.init(
            url: outcome.url, head: outcome.head, metrics: outcome.metrics, redirects: outcome.redirects,
            fileURL: outcome.fileURL, body: outcome.fileURL == nil ? outcome.body : nil, request: outcome.request)
    }
}
