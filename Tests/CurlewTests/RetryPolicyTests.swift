@testable import Curlew
import Foundation
import HTTPTypes
import Testing

/// A deterministic generator (SplitMix64) so that jittered delays can be checked.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("RetryPolicy decisions and backoff math (no network)")
struct RetryPolicyTests {
    let url = URL(string: "http://127.0.0.1:1/x")!

    func statusError(_ code: Int, headers: HTTPFields = [:]) -> CurlewError {
        CurlewError(
            .unacceptableStatus, "HTTP \(code)", url: url,
            responseHead: HTTPResponse(status: .init(code: code), headerFields: headers))
    }

    func request(_ method: HTTPRequest.Method = .get) -> OutgoingRequest {
        OutgoingRequest(url: url, method: method)
    }

    @Test func exponentialBoundDoublesAndIsCapped() {
        let policy = RetryPolicy(backoffBase: 2, backoffScale: .milliseconds(100), maximumDelay: .seconds(1))
        #expect(policy.backoffBound(forAttempt: 1) == .milliseconds(100))
        #expect(policy.backoffBound(forAttempt: 2) == .milliseconds(200))
        #expect(policy.backoffBound(forAttempt: 3) == .milliseconds(400))
        #expect(policy.backoffBound(forAttempt: 4) == .milliseconds(800))
        #expect(policy.backoffBound(forAttempt: 5) == .seconds(1))
        #expect(policy.backoffBound(forAttempt: 500) == .seconds(1), "huge exponents must not overflow")
        let base3 = RetryPolicy(backoffBase: 3, backoffScale: .seconds(1), maximumDelay: .seconds(100))
        #expect(base3.backoffBound(forAttempt: 3) == .seconds(9))
    }

    @Test func fullJitterStaysWithinBoundAndSpreads() {
        let policy = RetryPolicy(backoffScale: .milliseconds(400), maximumDelay: .seconds(10))
        var generator = SeededGenerator(state: 42)
        let delays = (0..<500).map { _ in policy.backoff(forAttempt: 3, using: &generator) }
        let bound = Duration.milliseconds(1600)
        #expect(delays.allSatisfy { $0 >= .zero && $0 <= bound })
        // Full jitter spreads over the whole range: some delays near zero, some near the bound.
        #expect(delays.contains { $0 < .milliseconds(200) })
        #expect(delays.contains { $0 > .milliseconds(1400) })
        let mean = delays.reduce(0.0) { $0 + $1.inSeconds } / Double(delays.count)
        #expect(abs(mean - 0.8) < 0.1, "the mean of a uniform [0, 1.6 s] is 0.8 s, got \(mean)")
        var noJitter = policy
        noJitter.jitter = .none
        #expect(noJitter.backoff(forAttempt: 3, using: &generator) == bound)
    }

    @Test func retriesIdempotentMethodsOnRetryableStatuses() {
        let policy = RetryPolicy.default
        for code in [408, 429, 500, 502, 503, 504] {
            #expect(policy.isRetryable(request(), error: statusError(code)), "status \(code)")
        }
        for code in [400, 401, 403, 404, 409, 501] {
            #expect(!policy.isRetryable(request(), error: statusError(code)), "status \(code)")
        }
        for method: HTTPRequest.Method in [.get, .head, .options, .put, .delete, .trace] {
            #expect(policy.isRetryable(request(method), error: statusError(503)))
        }
        #expect(!policy.isRetryable(request(.post), error: statusError(503)))
        #expect(!policy.isRetryable(request(.patch), error: statusError(503)))
    }

    @Test func retriesTransientTransportErrors() {
        let policy = RetryPolicy.default
        for kind: CurlewError.Kind in [.connectionRefused, .connectionClosedMidBody, .connectTimeout, .idleTimeout, .totalTimeout, .hostNotFound] {
            #expect(policy.isRetryable(request(), error: CurlewError(kind, "x", url: url)), "\(kind)")
        }
        let reset = CurlewError(.transport, "Connection reset by peer", url: url, curlCode: 56)
        #expect(policy.isRetryable(request(), error: reset))
        let gotNothing = CurlewError(.malformedResponse, "empty reply", url: url, curlCode: 52)
        #expect(policy.isRetryable(request(), error: gotNothing))
        #expect(!policy.isRetryable(request(), error: CurlewError(.tlsFailure, "x", url: url, curlCode: 60)))
        #expect(!policy.isRetryable(request(), error: CurlewError(.invalidURL, "x", url: url)))
        // A proxy's refusal of a tunnel comes with curl 56 too, but nothing was lost.
        #expect(!policy.isRetryable(request(), error: CurlewError(.proxyFailure, "refused (403)", url: url, curlCode: 56)))
    }

    @Test func connectionLostOnlyIgnoresStatusesAndRefusals() {
        let policy = RetryPolicy.connectionLostOnly()
        #expect(policy.isRetryable(request(), error: CurlewError(.transport, "reset", url: url, curlCode: 56)))
        #expect(policy.isRetryable(request(), error: CurlewError(.connectionClosedMidBody, "closed", url: url, curlCode: 18)))
        #expect(!policy.isRetryable(request(), error: statusError(503)))
        #expect(!policy.isRetryable(request(), error: CurlewError(.connectionRefused, "x", url: url, curlCode: 7)))
        #expect(!policy.isRetryable(request(.post), error: CurlewError(.transport, "reset", url: url, curlCode: 56)))
    }

    @Test func limitThenGivesUpWithTheLastErrorInside() {
        let policy = RetryPolicy(retryLimit: 2, backoffScale: .milliseconds(10))
        guard case .retryWithDelay(let first) = policy.decide(request(), error: statusError(503), attempt: 1, elapsed: .zero) else {
            Issue.record("attempt 1 should be retried")
            return
        }
        #expect(first <= .milliseconds(10))
        guard case .retryWithDelay = policy.decide(request(), error: statusError(503), attempt: 2, elapsed: .zero) else {
            Issue.record("attempt 2 should be retried")
            return
        }
        guard case .doNotRetryWithError(let error) = policy.decide(request(), error: statusError(503), attempt: 3, elapsed: .zero),
            let giveUp = error as? CurlewError
        else {
            Issue.record("attempt 3 should give up")
            return
        }
        #expect(giveUp.kind == .retryLimitExceeded)
        #expect(giveUp.status?.code == 503)
        #expect(giveUp.message.contains("3 attempts"))
        #expect((giveUp.underlying as? CurlewError)?.kind == .unacceptableStatus)
        guard case .doNotRetry = policy.decide(request(), error: statusError(404), attempt: 1, elapsed: .zero) else {
            Issue.record("a 404 is not for this policy to decide")
            return
        }
    }

    @Test func retryAfterDeltaSecondsAndHTTPDate() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func head(_ value: String) -> HTTPResponse {
            HTTPResponse(status: .serviceUnavailable, headerFields: [.retryAfter: value])
        }
        #expect(RetryPolicy.retryAfter(in: head("7"), now: now) == .seconds(7))
        #expect(RetryPolicy.retryAfter(in: head(" 0 "), now: now) == .zero)
        // 1_700_000_000 is Tue, 14 Nov 2023 22:13:20 GMT.
        #expect(RetryPolicy.retryAfter(in: head("Tue, 14 Nov 2023 22:13:50 GMT"), now: now) == .seconds(30))
        #expect(RetryPolicy.retryAfter(in: head("Tuesday, 14-Nov-23 22:14:20 GMT"), now: now) == .seconds(60))
        #expect(RetryPolicy.retryAfter(in: head("Tue Nov 14 22:13:25 2023"), now: now) == .seconds(5))
        #expect(RetryPolicy.retryAfter(in: head("Mon, 13 Nov 2023 00:00:00 GMT"), now: now) == .zero, "a past date means now")
        #expect(RetryPolicy.retryAfter(in: head("soon"), now: now) == nil)
        #expect(RetryPolicy.retryAfter(in: head("-3"), now: now) == nil)
        #expect(RetryPolicy.retryAfter(in: HTTPResponse(status: .ok), now: now) == nil)
        #expect(RetryPolicy.retryAfter(in: head("99999999999999999999999"), now: now)! > .seconds(1_000_000))
    }

    @Test func retryAfterReplacesBackoffAndTooLongGivesUp() {
        let policy = RetryPolicy(backoffScale: .seconds(5), maximumDelay: .seconds(10))
        let short = statusError(429, headers: [.retryAfter: "2"])
        guard case .retryWithDelay(let delay) = policy.decide(request(), error: short, attempt: 1, elapsed: .zero) else {
            Issue.record("should retry")
            return
        }
        #expect(delay == .seconds(2))
        let long = statusError(503, headers: [.retryAfter: "3600"])
        guard case .doNotRetryWithError(let error) = policy.decide(request(), error: long, attempt: 1, elapsed: .zero) else {
            Issue.record("should give up rather than retry early")
            return
        }
        #expect((error as? CurlewError)?.message.contains("retry after") == true)
        var ignoring = policy
        ignoring.honorsRetryAfter = false
        guard case .retryWithDelay(let backoff) = ignoring.decide(request(), error: long, attempt: 1, elapsed: .zero) else {
            Issue.record("should retry with backoff")
            return
        }
        #expect(backoff <= .seconds(5))
    }

    @Test func deadlineStopsRetries() {
        let policy = RetryPolicy(retryLimit: 10, backoffScale: .seconds(1), deadline: .seconds(3), jitter: .none)
        guard case .retryWithDelay = policy.decide(request(), error: statusError(503), attempt: 1, elapsed: .seconds(1)) else {
            Issue.record("1 s + 1 s is within the deadline")
            return
        }
        guard case .doNotRetryWithError(let error) = policy.decide(request(), error: statusError(503), attempt: 2, elapsed: .seconds(2)) else {
            Issue.record("2 s + 2 s passes the deadline of 3 s")
            return
        }
        #expect((error as? CurlewError)?.kind == .retryLimitExceeded)
        #expect((error as? CurlewError)?.message.contains("deadline") == true)
    }
}
