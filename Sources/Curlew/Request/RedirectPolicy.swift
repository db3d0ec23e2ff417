import Foundation
import HTTPTypes

/// How a request follows redirects.
///
/// Every hop is checked whatever the policy: only http and https targets are allowed, and
/// `Authorization` and `Cookie` are removed before a hop to another host (scheme, host or port).
public struct RedirectPolicy: Sendable {
    enum Mode: Sendable {
        case none
        case follow(maximum: Int)
        case custom(maximum: Int, decide: @Sendable (RedirectHop, OutgoingRequest) -> RedirectDecision)
    }

    let mode: Mode

    /// Follow up to 10 redirects. The default.
    public static let `default` = RedirectPolicy(mode: .follow(maximum: 10))

    /// Do not follow redirects; the 3xx response is the result.
    public static let doNotFollow = RedirectPolicy(mode: .none)

    /// Follow up to `maximum` redirects, then fail with ``CurlewError/Kind/tooManyRedirects``.
    public static func follow(maximum: Int) -> RedirectPolicy {
        RedirectPolicy(mode: .follow(maximum: max(0, maximum)))
    }

    /// Ask `decide` at every hop, up to `maximum` hops.
    ///
    /// `decide` gets the hop and the request Curlew would send next (already safe: method
    /// rewritten per RFC 9110, credentials removed across hosts) and may follow it as is,
    /// follow a modified copy, stop (the 3xx becomes the response) or fail. It runs on the
    /// session's I/O thread, so it must be quick and must not block.
    public static func custom(
        maximum: Int = 10,
        _ decide: @escaping @Sendable (RedirectHop, OutgoingRequest) -> RedirectDecision
    ) -> RedirectPolicy {
        RedirectPolicy(mode: .custom(maximum: max(0, maximum), decide: decide))
    }

    var maximum: Int {
        switch mode {
        case .none: return 0
        case .follow(let maximum), .custom(let maximum, _): return maximum
        }
    }
}

/// What a custom redirect policy decides for one hop.
public enum RedirectDecision: Sendable {
    /// Send this request next.
    case follow(OutgoingRequest)
    /// Stop here; the 3xx response is the result.
    case stop
    /// Fail the request with ``CurlewError/Kind/redirectRejected`` and this reason.
    case reject(String)
}

/// One redirect that was followed (or is about to be).
public struct RedirectHop: Sendable {
    /// The URL that answered with a redirect.
    public let from: URL
    /// The resolved target of the `Location` header.
    public let to: URL
    /// The 3xx response head.
    public let response: HTTPResponse
    /// The request that got the redirect, as sent (for ``HARRecorder``).
    var request: OutgoingRequest? = nil
    /// The hop's timings and sizes, once it finished (for ``HARRecorder``).
    var metrics: TransferMetrics? = nil
}
