import Foundation

/// Sees the raw response of every attempt before validation and serialization, and every
/// attempt that failed before a response was complete, like HTTPTransport's response
/// interceptors (whose `RawResponse` carries either a response or an `error`).
///
/// Put it in the same `interceptors` list as adapters and retriers (session-wide or per
/// request): an interceptor that conforms to this protocol is called after the transfer, in
/// list order. Implement either method or both; each does nothing by default.
///
/// - **Responses** (`intercept(_:for:)` with a ``Response``): return a changed head or body,
///   or throw to fail the attempt. A thrown ``CurlewError`` is used as is; anything else fails
///   with ``CurlewError/Kind/validationFailed``, the thrown error as `underlying` and the
///   response's status, head and body kept.
/// - **Failures** (`intercept(_:for:)` with a ``FailedAttempt``): the transfer failed —
///   connection refused, a timeout, a malformed or too large response… Return to leave the
///   failure as it is, or throw to replace it: a thrown ``CurlewError`` is used as is (with the
///   URL, head and body of the failure where it has none); anything else becomes the
///   `underlying` of the failure, whose kind, message and curl code stay, so retriers such as
///   ``RetryPolicy`` still recognise it. Not called for the caller's own cancellation, a
///   session shutdown, a failed adapter, or a response rejected by validation (the response
///   method saw that response already).
///
/// Either way the retriers are then consulted as for any other failure, and the caller gets the
/// app's error back as ``CurlewError/underlying``.
///
/// ```swift
/// struct ClarifyErrors: RequestInterceptor, ResponseInterceptor {
///     func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data> {
///         guard response.status.code >= 400,
///               let body = try? JSONDecoder().decode(APIErrorBody.self, from: response.value) else { return response }
///         throw MyAppError.server(code: body.code, message: body.message)
///     }
///     func intercept(_ failure: FailedAttempt, for session: Session) async throws {
///         if failure.error.kind == .connectionRefused || failure.error.kind == .hostNotFound { throw MyAppError.offline }
///     }
/// }
/// ```
///
/// The body is the collected body of data requests; it is empty for downloads, and changing it
/// there has no effect. Streamed requests (`bytes`) are not intercepted.
public protocol ResponseInterceptor: Sendable {
    /// Returns the response to validate and serialize (the same one to change nothing).
    func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data>

    /// Sees an attempt whose transfer failed; returns to leave the failure unchanged, throws to
    /// replace it.
    func intercept(_ failure: FailedAttempt, for session: Session) async throws
}

extension ResponseInterceptor {
    /// Returns the response unchanged.
    public func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data> {
        response
    }

    /// Leaves the failure unchanged.
    public func intercept(_ failure: FailedAttempt, for session: Session) async throws {}
}
