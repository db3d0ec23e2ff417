import Foundation
import HTTPTypes

/// A request whose body is collected in memory or streamed.
///
/// It starts on first consumption. However many results are asked of one `DataRequest`
/// (`data()`, `decode`, `response`, `events`, several `serialized(by:)`), it makes exactly one
/// network transfer (plus any retries); `bytes` streams the body instead and cannot be
/// combined with the collecting results. Validation, interception, events, cancelling,
/// suspending and the serializers come from ``Request``.
public final class DataRequest: Request, @unchecked Sendable {
    // Safe: it adds no stored property to ``Request``, whose proof holds.
    init(session: Session, build: Result<OutgoingRequest, CurlewError>, usesSessionInterceptors: Bool = true) {
        super.init(core: RequestCore(session: session, build: build, mode: .collect, usesSessionInterceptors: usesSessionInterceptors))
    }

    /// The response with the raw body.
    public var response: Response<Data> {
        get async throws(CurlewError) {
            try Self.body(of: try await core.completed())
        }
    }

    /// The body as it arrives, in chunks, with backpressure: when the consumer falls behind by
    /// more than ``SessionConfiguration/streamBufferSize`` bytes, the transfer pauses.
    ///
    /// Validation runs on the head before the first chunk. Dropping the iterator cancels the
    /// transfer.
    public var bytes: ByteStream { ByteStream(core: core) }
}
