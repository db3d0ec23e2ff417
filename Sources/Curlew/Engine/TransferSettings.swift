import Foundation
import HTTPTypes

/// The session's settings with one request's overrides applied.
struct TransferSettings: Sendable {
    var timeouts: Timeouts
    var redirectPolicy: RedirectPolicy
    var maximumBodySize: Int
    var decompressionLimit: DecompressionLimit
    var automaticDecompression: Bool
    var httpVersion: HTTPVersionPreference
    /// The proxy in effect, and the request's own when it overrides the session's.
    var proxy: ProxyConfiguration
    var proxyOverride: ProxyConfiguration?
    var userAgent: String?
    var acceptLanguage: String?
    var defaultHeaders: HTTPFields
    var progressInterval: Duration
    var streamBufferSize: Int
    /// Whether progress events are wanted (someone listens to `events`).
    var reportsProgress: Bool
    /// Where cookies are read from and stored at each hop; nil when cookies are off.
    var cookieStorage: (any CookieStorage)?
    /// The request's own credentials, for the origin of its URL.
    var credential: HTTPCredential?
    /// The session's credentials, by origin.
    var credentials: CredentialStore
    /// When a body is preceded by `Expect: 100-continue`.
    var expectContinue: ExpectContinue

    init(configuration: SessionConfiguration, options: RequestOptions, reportsProgress: Bool) {
        timeouts = options.timeouts.merged(over: configuration.timeouts)
        redirectPolicy = options.redirectPolicy ?? configuration.redirectPolicy
        maximumBodySize = options.maximumBodySize ?? configuration.maximumBodySize
        decompressionLimit = configuration.decompressionLimit
        automaticDecompression = configuration.automaticDecompression
        httpVersion = options.httpVersion ?? configuration.httpVersion
        proxyOverride = options.proxy
        proxy = options.proxy ?? configuration.proxy
        userAgent = configuration.userAgent
        acceptLanguage = configuration.acceptLanguage
        defaultHeaders = configuration.defaultHeaders
        progressInterval = configuration.progressInterval
        streamBufferSize = configuration.streamBufferSize
        self.reportsProgress = reportsProgress
        cookieStorage = configuration.cookieStorage
        credential = options.credential
        credentials = configuration.credentials
        expectContinue = options.expectContinue ?? configuration.expectContinue
    }
}

extension TransferSettings {
    /// Rejects limits that cannot mean what they say: a zero or negative timeout (libcurl
    /// would take it as "the default" or as 1 ms) and a negative body size. `nil` is the
    /// way to say "no limit".
    func validate(url: URL) throws(CurlewError) {
        try Self.check(timeouts.connect, "connect", url: url)
        try Self.check(timeouts.total, "total", url: url)
        try Self.check(timeouts.idle, "idle", url: url)
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
    }

    private static func check(_ limit: Duration?, _ name: StaticString, url: URL) throws(CurlewError) {
        guard let limit, limit <= .zero else { return }
        throw CurlewError(
            .invalidRequest, "the \(name) timeout must be positive, not \(limit); use nil for no limit", url: url)
    }
}
