import Foundation

/// The interceptors of one request in the order they run — the session's, then the request's
/// own — and the places the pipeline calls them: adapting each attempt, intercepting each raw
/// response or failed transfer, and deciding about each failure.
struct InterceptorChain: Sendable {
    let interceptors: [any RequestInterceptor]
    private let responseInterceptors: [any ResponseInterceptor]

    init(_ interceptors: [any RequestInterceptor]) {
        self.interceptors = interceptors
        responseInterceptors = interceptors.compactMap { $0 as? any ResponseInterceptor }
    }

    var isEmpty: Bool { interceptors.isEmpty }

    /// Whether a retry of a download continues its partial file (see ``RetryPolicy/resumesDownloads``).
    var resumesDownloads: Bool { interceptors.contains { ($0 as? RetryPolicy)?.resumesDownloads == true } }

    /// Runs every adapter in order; the first failure stops the chain.
    func adapt(_ request: OutgoingRequest, for session: Session) async throws(CurlewError) -> OutgoingRequest {
        var adapted = request
        for interceptor in interceptors {
            do {
                adapted = try await interceptor.adapt(adapted, for: session)
            } catch let error as CurlewError {
                throw error
            } catch {
                throw CurlewError(
                    .invalidRequest, "the adapter \(type(of: interceptor)) failed: \(error)", url: adapted.url,
                    underlying: error)
            }
        }
        return try RequestBuilder.validate(adapted).get()
    }

    /// Passes the outcome of a transfer through every response interceptor, in order.
    func intercept(_ outcome: TransferOutcome, for session: Session, attempts: Int) async throws(CurlewError)
        -> TransferOutcome
    {
        guard !responseInterceptors.isEmpty else { return outcome }
        var response = Response(
            request: outcome.request, url: outcome.url, responseHead: outcome.responseHead, value: outcome.body,
            metrics: outcome.metrics, redirects: outcome.redirects, attempts: attempts)
        for interceptor in responseInterceptors {
            do {
                response = try await interceptor.intercept(response, for: session)
            } catch let error as CurlewError {
                throw error.adding(url: outcome.url, head: response.head, body: response.value)
            } catch {
                throw CurlewError(
                    .validationFailed, "the response interceptor \(type(of: interceptor)) failed: \(error)",
                    url: outcome.url, responseHead: response.head, responseBody: response.value, underlying: error)
            }
        }
        return outcome.replacing(head: response.responseHead, body: response.value)
    }

    /// Shows a failed transfer to every response interceptor, in order; each sees the error as
    /// the ones before it left it. Returns the error to fail the attempt with.
    func intercept(_ error: CurlewError, request: OutgoingRequest, attempt: Int, for session: Session) async
        -> CurlewError
    {
        guard !responseInterceptors.isEmpty else { return error }
        var current = error
        for interceptor in responseInterceptors {
            do {
                try await interceptor.intercept(FailedAttempt(request: request, error: current, attempt: attempt), for: session)
            } catch {
                current = current.replaced(by: error)
            }
        }
        return current
    }

    /// Asks the retriers in order until one decides.
    func decide(
        _ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, context: RetryContext
    ) async -> RetryResult {
        for retrier in interceptors {
            let decision = await retrier.retry(request, for: session, dueTo: error, context: context)
            if case .doNotRetry = decision { continue }
            return decision
        }
        return .doNotRetry
    }
}

extension CurlewError {
    /// What this failure becomes when a response interceptor throws `thrown` for it: a
    /// ``CurlewError`` as is (with this one's URL, head and body where it has none), anything
    /// else as this error's `underlying`.
    func replaced(by thrown: any Error) -> CurlewError {
        guard let replacement = thrown as? CurlewError else { return replacing(underlying: thrown) }
        let next = replacement.adding(url: url, head: responseHead, body: responseBody)
        // The partial file of a failed download stays reachable, to be resumed or removed.
        guard next.downloadResumeData == nil, let downloadResumeData else { return next }
        return next.with(downloadResumeData: downloadResumeData)
    }
}
