import Foundation
import Synchronization

/// The nonces a ``TestServer`` issued for Digest authentication, and every `Authorization`
/// field its authentication routes received, by path.
final class DigestNonceStore: Sendable {
    /// What the server knows of one nonce.
    struct Record: Sendable {
        var path: String
        var opaque: String
        /// The highest nonce count used so far; a response must use a higher one (RFC 7616 §3.4).
        var lastCount = 0
        /// Refused with `stale=true` when a correct response uses it (the first nonce of a
        /// `stale_once` route).
        var isStale: Bool
    }

    private struct State {
        var nonces: [String: Record] = [:]
        var authorizations: [String: [String?]] = [:]
        var issued = 0
    }

    private let state = Mutex(State())

    /// A new nonce (and its opaque value) for `path`.
    func issue(path: String, stale: Bool) -> (nonce: String, opaque: String) {
        state.withLock { state in
            state.issued += 1
            let nonce = "n\(state.issued)-\(UInt64.random(in: 0...UInt64.max))"
            let opaque = "o\(UInt32.random(in: 0...UInt32.max))"
            state.nonces[nonce] = Record(path: path, opaque: opaque, isStale: stale)
            return (nonce, opaque)
        }
    }

    /// The record of `nonce`, if this server issued it.
    func record(_ nonce: String) -> Record? {
        state.withLock { $0.nonces[nonce] }
    }

    /// Notes that a correct response used `nonce` with `count`.
    func use(_ nonce: String, count: Int) {
        state.withLock { $0.nonces[nonce]?.lastCount = count }
    }

    /// Keeps the `Authorization` field (nil when absent) of a request to `path`.
    func noteAuthorization(_ value: String?, path: String) {
        state.withLock { $0.authorizations[path, default: []].append(value) }
    }

    /// The `Authorization` fields received for `path`, in order; nil for requests without one.
    func authorizations(path: String) -> [String?] {
        state.withLock { $0.authorizations[path] ?? [] }
    }
}
