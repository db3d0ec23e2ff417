import Foundation

/// Sees the raw response of every attempt before validation and serialization, like
/// HTTPTransport's response interceptors.
///
/// Put it in the same `interceptors` list as adapters and retriers (session-wide or per
/// request): an interceptor that conforms to this protocol is called after the transfer, in
/// list order. It may return a changed head or body, or throw to fail the attempt — the
/// retriers are then consulted as for any other failure.
///
/// The body is the collected body of data requests; it is empty for downloads, and changing it
/// there has no effect. Streamed requests (`bytes`) are not intercepted.
public protocol ResponseInterceptor: Sendable {
    /// Returns the response to validate and serialize (the same one to change nothing).
    func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data>
}
