import Foundation
import HTTPTypes

/// The session's settings with one request's overrides applied.
///
/// The session's part is shared (``SessionTransferSettings``, made once per session); only
/// the values a request may override are stored here. Immutable and passed by reference:
/// every request that overrides nothing shares its session's one instance
/// (``Session/transferSettings(for:)``), so a plain request neither builds nor copies one.
final class TransferSettings: Sendable {
    /// The session's settings.
    let session: SessionTransferSettings
    let timeouts: Timeouts
    /// ``Timeouts/connect`` in libcurl's milliseconds (0: libcurl's default), converted once:
    /// reading a `Duration`'s components cost about 190 instructions per request.
    let connectTimeoutMilliseconds: Int
    let redirectPolicy: RedirectPolicy
    let maximumBodySize: Int
    let httpVersion: HTTPVersionPreference
    /// The request's own proxy, when it overrides the session's.
    let proxyOverride: ProxyConfiguration?
    /// The trust policy of the request's own proxy, resolved here rather than on the curl
    /// thread (it may read files); nil for libcurl's defaults (see ``ProxyConfiguration/resolvedTrust()``).
    let proxyOverrideTrust: Result<ResolvedTrustPolicy, TrustConfigurationProblem>?
    /// The request's own credentials, for the origin of its URL.
    let credential: HTTPCredential?
    /// When a body is preceded by `Expect: 100-continue`.
    let expectContinue: ExpectContinue
    /// Where cookies are read from and stored at each hop: the request's own choice, else the
    /// session's; nil when cookies are off.
    let cookieStorage: (any CookieStorage)?
    /// Whether there is a ``cookieStorage`` (a Bool, cheaper to ask than the existential).
    let storesCookies: Bool
    /// The request's own `CURLOPT_CONNECT_TO` map, when it overrides the session's.
    let connectToOverride: [HostAndPort: HostAndPort]?
    /// The request's own IP version, when it overrides the session's.
    let ipVersionOverride: IPVersionPreference?
    /// Whether either of the two is set: the pooled handle gets them, and the session's back
    /// after (see ``EasyHandlePool/prepareNetwork(_:on:request:)``).
    let overridesNetwork: Bool
    /// The wire trace of the request (its own, else the session's), when it is on.
    let wireTrace: WireTrace?
    /// The request's HTTP/2 stream weight (`CURLOPT_STREAM_WEIGHT`), when it sets one.
    let streamWeight: Int?
    /// Whether the limits that ``validate(url:)`` checks are all the session's, unchanged.
    private let usesSessionLimits: Bool

    init(session: SessionTransferSettings, options: RequestOptions) {
        self.session = session
        if options.isUntouchedDefault {
            // Most requests override nothing: the session's values, without reading the options.
            timeouts = session.timeouts
            redirectPolicy = session.redirectPolicy
            maximumBodySize = session.maximumBodySize
            httpVersion = session.httpVersion
            expectContinue = session.expectContinue
            proxyOverride = nil
            proxyOverrideTrust = nil
            credential = nil
            cookieStorage = session.cookieStorage
            storesCookies = session.storesCookies
            connectToOverride = nil
            ipVersionOverride = nil
            overridesNetwork = false
            wireTrace = session.wireTrace
            streamWeight = nil
            usesSessionLimits = true
            connectTimeoutMilliseconds = session.timeouts.connect?.curlMilliseconds ?? 0
            return
        }
        let timeouts = options.timeouts == .unset ? session.timeouts : options.timeouts.merged(over: session.timeouts)
        self.timeouts = timeouts
        redirectPolicy = options.redirectPolicy ?? session.redirectPolicy
        maximumBodySize = options.maximumBodySize ?? session.maximumBodySize
        httpVersion = options.httpVersion ?? session.httpVersion
        proxyOverride = options.proxy
        proxyOverrideTrust = options.proxy?.resolvedTrust()
        credential = options.httpCredential
        if let choice = options.cookieStorage {
            cookieStorage = choice.storage
            storesCookies = cookieStorage != nil
        } else {
            cookieStorage = session.cookieStorage
            storesCookies = session.storesCookies
        }
        expectContinue = options.expectContinue ?? session.expectContinue
        connectToOverride = options.connectTo
        ipVersionOverride = options.ipVersion
        overridesNetwork = options.connectTo != nil || options.ipVersion != nil
        wireTrace = options.wireTrace.map { $0.isEnabled ? $0 : nil } ?? session.wireTrace
        streamWeight = options.http2StreamWeight
        usesSessionLimits = options.timeouts == .unset && options.proxy == nil && options.expectContinue == nil
            && options.maximumBodySize == nil && options.connectTo == nil && options.http2StreamWeight == nil
        connectTimeoutMilliseconds = timeouts.connect?.curlMilliseconds ?? 0
    }

    /// The proxy in effect: the request's own, else the session's.
    var proxy: ProxyConfiguration { proxyOverride ?? session.proxy }
    var decompressionLimit: DecompressionLimit { session.decompressionLimit }
    var automaticDecompression: Bool { session.automaticDecompression }
    var userAgent: String? { session.userAgent }
    var acceptLanguage: String? { session.acceptLanguage }
    var defaultHeaders: HTTPFields { session.defaultHeaders }
    var progressInterval: Duration { session.progressInterval }
    var streamBufferSize: Int { session.streamBufferSize }
    /// The session's credentials, by origin.
    var credentials: HTTPCredentialStore { session.credentials }
}

extension TransferSettings {
    /// Rejects limits that cannot mean what they say: a zero or negative timeout (libcurl
    /// would take it as "the default" or as 1 ms) and a negative body size. `nil` is the
    /// way to say "no limit".
    ///
    /// The session's own limits are checked once, when the session is made; a request that
    /// overrides none of them costs nothing here.
    func validate(url: @autoclosure () -> URL) throws(CurlewError) {
        if usesSessionLimits && session.limitsAreValid { return }
        if let weight = streamWeight, !(1...256).contains(weight) {
            throw CurlewError(.invalidRequest, "the HTTP/2 stream weight must lie within 1...256, not \(weight)", url: url())
        }
        let networkProblem = session.networkProblem ?? connectToOverride.flatMap(NetworkControls.connectToProblem)
        try Self.validate(
            timeouts: timeouts, proxy: proxy, expectContinue: expectContinue, maximumBodySize: maximumBodySize,
            networkProblem: networkProblem, url: url())
    }

    static func validate(
        timeouts: Timeouts, proxy: ProxyConfiguration, expectContinue: ExpectContinue, maximumBodySize: Int,
        networkProblem: String?, url: URL
    ) throws(CurlewError) {
        try check(timeouts.connect, "connect", url: url)
        try check(timeouts.total, "total", url: url)
        try check(timeouts.idle, "idle", url: url)
        if let speed = timeouts.minimumSpeed, speed.bytesPerSecond <= 0 || speed.window <= .zero {
            throw CurlewError(
                .invalidRequest,
                "the minimum speed must be positive bytes per second over a positive window, not \(speed.bytesPerSecond) over \(speed.window)",
                url: url)
        }
        try proxy.validate(url: url)
        if expectContinue.timeout <= .zero {
            throw CurlewError(
                .invalidRequest, "the Expect: 100-continue timeout must be positive, not \(expectContinue.timeout)", url: url)
        }
        if maximumBodySize < 0 {
            throw CurlewError(
                .invalidRequest, "maximumBodySize must be zero or positive, not \(maximumBodySize)", url: url)
        }
        if let networkProblem { throw CurlewError(.invalidRequest, networkProblem, url: url) }
    }

    private static func check(_ limit: Duration?, _ name: StaticString, url: URL) throws(CurlewError) {
        guard let limit, limit <= .zero else { return }
        throw CurlewError(
            .invalidRequest, "the \(name) timeout must be positive, not \(limit); use nil for no limit", url: url)
    }
}
