import Foundation
import HTTPTypes

/// One event of a transfer, as iterated from `request.events`.
public enum TransferEvent: Sendable {
    /// Upload progress; throttled, and always ends with a final value.
    case uploadProgress(TransferProgress)
    /// Download progress; throttled, and always ends with a final value.
    case downloadProgress(TransferProgress)
    /// The final response head, as soon as it arrives (redirects excluded).
    case response(HTTPResponse)
    /// The request was suspended (see ``Request/suspend()``). For a transfer under way this
    /// comes once libcurl has paused it: no bytes arrive after it until ``resumed``.
    case suspended
    /// The request was resumed after ``suspended``.
    case resumed
    /// The transfer finished successfully.
    case completed(TransferCompletion)
    /// A record of the wire trace, when the request is traced (see ``WireTrace``).
    case wireTrace(WireTraceRecord)
}

/// What a finished transfer reports in ``TransferEvent/completed(_:)``.
public struct TransferCompletion: Sendable {
    /// The URL that gave the final response.
    public let url: URL
    /// The final response head.
    public let head: HTTPResponse
    /// Timings and sizes.
    public let metrics: TransferMetrics
    /// The redirects followed.
    public let redirects: [RedirectHop]
    /// For downloads: where the file was moved to.
    public let fileURL: URL?
    /// For data requests: the collected body.
    public let body: Data?
    /// The request of the last hop, as sent (for ``HARRecorder``).
    var request: OutgoingRequest? = nil
}
