import Foundation

/// An interceptor built from parts: adapters, retriers and response handlers, or closures.
///
/// ```swift
/// let tagging = Interceptor.adapter { request, _ in
///     var request = request
///     request.headerFields[.init("X-Request-Source")!] = "batch"
///     return request
/// }
/// let session = Session(interceptors: [tagging, RetryPolicy.default])
/// ```
///
/// Adapters run in order and the first failure stops them; retriers run in order until one
/// decides; response handlers run in order.
public struct Interceptor: RequestInterceptor, ResponseInterceptor {
    /// A response handler: returns the (possibly changed) response, or throws to fail the attempt.
    public typealias ResponseHandler = @Sendable (Response<Data>, Session) async throws -> Response<Data>

    /// The adapters, in order.
    public let adapters: [any RequestAdapter]
    /// The retriers, in order.
    public let retriers: [any RequestRetrier]
    /// The response handlers, in order.
    public let responseHandlers: [ResponseHandler]

    /// Combines adapters, retriers and response handlers.
    public init(
        adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = [],
        responseHandlers: [ResponseHandler] = []
    ) {
        self.adapters = adapters
        self.retriers = retriers
        self.responseHandlers = responseHandlers
    }

    /// Combines interceptors: each one's adapter, retrier and response side, in order.
    public init(interceptors: [any RequestInterceptor]) {
        adapters = interceptors
        retriers = interceptors
        responseHandlers = interceptors.compactMap { interceptor in
            guard let responder = interceptor as? any ResponseInterceptor else { return nil }
            return { response, session in try await responder.intercept(response, for: session) }
        }
    }

    /// An interceptor that only adapts requests.
    public static func adapter(
        _ adapt: @escaping @Sendable (OutgoingRequest, Session) async throws -> OutgoingRequest
    ) -> Interceptor {
        Interceptor(adapters: [ClosureAdapter(adapt: adapt)])
    }

    /// An interceptor that only decides about retries.
    public static func retrier(
        _ decide: @escaping @Sendable (OutgoingRequest, Session, CurlewError, RetryContext) async -> RetryResult
    ) -> Interceptor {
        Interceptor(retriers: [ClosureRetrier(decide: decide)])
    }

    /// An interceptor that only sees raw responses, before validation and serialization.
    public static func response(_ handle: @escaping ResponseHandler) -> Interceptor {
        Interceptor(responseHandlers: [handle])
    }

    /// Runs the adapters in order.
    public func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest {
        var adapted = request
        for adapter in adapters { adapted = try await adapter.adapt(adapted, for: session) }
        return adapted
    }

    /// Asks the retriers in order until one decides.
    public func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, context: RetryContext)
        async -> RetryResult
    {
        for retrier in retriers {
            let decision = await retrier.retry(request, for: session, dueTo: error, context: context)
            if case .doNotRetry = decision { continue }
            return decision
        }
        return .doNotRetry
    }

    /// Calls ``retry(_:for:dueTo:context:)`` with a context that has no timing information.
    public func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, attempt: Int) async
        -> RetryResult
    {
        let now = ContinuousClock.now
        return await retry(
            request, for: session, dueTo: error,
            context: RetryContext(attempt: attempt, firstAttemptStart: now, attemptStart: now))
    }

    /// Runs the response handlers in order.
    public func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data> {
        var current = response
        for handler in responseHandlers { current = try await handler(current, session) }
        return current
    }
}

private struct ClosureAdapter: RequestAdapter {
    let adapt: @Sendable (OutgoingRequest, Session) async throws -> OutgoingRequest

    func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest {
        try await adapt(request, session)
    }
}

private struct ClosureRetrier: RequestRetrier {
    let decide: @Sendable (OutgoingRequest, Session, CurlewError, RetryContext) async -> RetryResult

    func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, context: RetryContext)
        async -> RetryResult
    {
        await decide(request, session, error, context)
    }

    func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, attempt: Int) async
        -> RetryResult
    {
        let now = ContinuousClock.now
        return await decide(
            request, session, error, RetryContext(attempt: attempt, firstAttemptStart: now, attemptStart: now))
    }
}
