import Foundation
import HTTPTypes

/// What a successful transfer produced, before validation and serialization.
struct TransferOutcome: Sendable {
    /// The request of the last hop.
    var request: OutgoingRequest
    /// The URL of the last hop.
    var url: URL
    var head: HTTPResponse
    /// The collected body; empty in stream and download modes.
    var body: Data
    /// The destination file, for downloads.
    var fileURL: URL?
    var metrics: TransferMetrics
    var redirects: [RedirectHop]
}
