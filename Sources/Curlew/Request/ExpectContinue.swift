import Foundation

/// When a request with a body first asks the server, with `Expect: 100-continue`, whether it
/// wants the body, and how long it waits for the answer.
///
/// Curlew does not ask by default (``never``), unlike libcurl, which asks for bodies over
/// 1 MiB: asking costs a round trip on every upload, and a full ``timeout`` on servers and
/// proxies that ignore the expectation. Ask when uploads are large and the server may refuse
/// them (authentication, size limits) — it then answers before the body is sent:
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.expectContinue = .bodies(largerThan: 8 << 20, timeout: .milliseconds(500))
/// ```
///
/// - A server that answers `100 Continue` gets the body at once.
/// - A server that answers with a final status (`401`, `413`, …) never gets the body.
/// - A server that says nothing within ``timeout`` gets the body anyway.
/// - A server that refuses the expectation with `417 Expectation Failed` gets the request
///   again, once, without it. A body that has not begun to go out is simply sent then; one that
///   had (the server answered after the timeout) is read again when it can be (data, a file,
///   a stream with a factory), and a one-shot stream fails with
///   ``CurlewError/Kind/bodyNotReplayable``.
///
/// A request whose own `Expect: 100-continue` field asks is treated like ``always(timeout:)``
/// with the configured timeout (one second under ``never``).
public struct ExpectContinue: Sendable, Hashable {
    /// Bodies longer than this many bytes ask first, and so do bodies of unknown length; nil
    /// when none does.
    public var bodiesLargerThan: Int64?
    /// How long to wait for the server's answer before sending the body anyway; must be
    /// positive.
    public var timeout: Duration

    /// Creates a policy: bodies longer than `bodiesLargerThan` bytes (or of unknown length)
    /// ask first, nil for none; `timeout` is the wait for an answer. Users say it with
    /// ``never``, ``always(timeout:)`` or ``bodies(largerThan:timeout:)``.
    init(bodiesLargerThan: Int64?, timeout: Duration = .seconds(1)) {
        self.bodiesLargerThan = bodiesLargerThan
        self.timeout = timeout
    }

    /// No request asks first (the default).
    public static let never = ExpectContinue(bodiesLargerThan: nil)

    /// Every request with a body asks first, even an empty body.
    public static func always(timeout: Duration = .seconds(1)) -> ExpectContinue {
        ExpectContinue(bodiesLargerThan: -1, timeout: timeout)
    }

    /// Bodies longer than `bytes`, and bodies of unknown length, ask first.
    public static func bodies(largerThan bytes: Int64, timeout: Duration = .seconds(1)) -> ExpectContinue {
        ExpectContinue(bodiesLargerThan: bytes, timeout: timeout)
    }

    /// libcurl's own rule: bodies over 1 MiB or of unknown length ask, and wait one second.
    public static let largeBodies = ExpectContinue.bodies(largerThan: 1 << 20)

    /// Whether a body of `length` bytes (nil: unknown) asks first.
    func applies(toBodyOfLength length: Int64?) -> Bool {
        guard let threshold = bodiesLargerThan else { return false }
        guard let length else { return true }
        return length > threshold
    }
}
