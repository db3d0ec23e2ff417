import Foundation

/// An interceptor built from parts: adapters, retriers, response and failure handlers, or
/// closures.
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
/// decides; response handlers and failure handlers run in order.
public struct Interceptor: RequestInterceptor, ResponseInterceptor {
    /// A response handler: returns the (possibly changed) response, or throws to fail the attempt.
    public typealias ResponseHandler = @Sendable (Response<Data>, Session) async throws -> Response<Data>
    /// A failure handler: returns to leave a failed attempt as it is, or throws to replace its
    /// error (see ``ResponseInterceptor``).
    public typealias FailureHandler = @Sendable (FailedAttempt, Session) async throws -> Void

    /// The adapters, in order.
    let adapters: [any RequestAdapter]
    /// The retriers, in order.
    let retriers: [any RequestRetrier]
    /// The response handlers, in order.
    let responseHandlers: [ResponseHandler]
    /// The failure handlers, in order.
    let failureHandlers: [FailureHandler]

    /// Combines adapters, retriers, response handlers and failure handlers.
    public init(
        adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = [],
        responseHandlers: [ResponseHandler] = [], failureHandlers: [FailureHandler] = []
    ) {
        self.adapters = adapters
        self.retriers = retriers
        self.responseHandlers = responseHandlers
        self.failureHandlers = failureHandlers
    }

    /// Combines interceptors: each one's adapter, retrier, response and failure side, in order.
    public init(interceptors: [any RequestInterceptor]) {
        adapters = interceptors
        retriers = interceptors
        let responders = interceptors.compactMap { $0 as? any ResponseInterceptor }
        responseHandlers = responders.map { responder in
            { response, session in try await responder.intercept(response, for: session) }
        }
        failureHandlers = responders.map { responder in
            { failure, session in try await responder.intercept(failure, for: session) }
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

    /// An interceptor that only sees failed transfers (connection refused, a timeout…), and may
    /// throw the app's own error instead.
    ///
    /// ```swift
    /// let offline = Interceptor.failure { failure, _ in
    ///     if failure.error.kind == .connectionRefused { throw MyAppError.offline }
    /// }
    /// ```
    public static func failure(_ handle: @escaping FailureHandler) -> Interceptor {
        Interceptor(failureHandlers: [handle])
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

    /// Runs the response handlers in order.
    public func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data> {
        var current = response
        for handler in responseHandlers { current = try await handler(current, session) }
        return current
    }

    /// Runs the failure handlers in order, each seeing the failure as the ones before it left
    /// it (as separate interceptors in a session's list do); throws the result when one of them
    /// replaced the error.
    public func intercept(_ failure: FailedAttempt, for session: Session) async throws {
        var current = failure
        var replaced = false
        for handler in failureHandlers {
            do {
                try await handler(current, session)
            } catch {
                current = FailedAttempt(request: failure.request, error: current.error.replaced(by: error), attempt: failure.attempt)
                replaced = true
            }
        }
        if replaced { throw current.error }
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

}
