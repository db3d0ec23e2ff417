import Foundation
import HTTPTypes

/// The part of every ``TransferSettings`` that comes from the session alone, made once per
/// session and shared by reference, so that a transfer copies one pointer instead of the
/// session's configuration.
final class SessionTransferSettings: Sendable {
    let timeouts: Timeouts
    let redirectPolicy: RedirectPolicy
    let maximumBodySize: Int
    let decompressionLimit: DecompressionLimit
    let automaticDecompression: Bool
    let httpVersion: HTTPVersionPreference
    let proxy: ProxyConfiguration
    let userAgent: String?
    let acceptLanguage: String?
    let defaultHeaders: HTTPFields
    let progressInterval: Duration
    let streamBufferSize: Int
    let cookieStorage: (any CookieStorage)?
    /// Whether there is a ``cookieStorage``, asked on every request: comparing the optional
    /// existential itself with nil copied and destroyed it (about 100 instructions).
    let storesCookies: Bool
    let credentials: HTTPCredentialStore
    let expectContinue: ExpectContinue
    /// DNS overrides, IP version, pool limits and local binding (see ``NetworkControls``).
    let network: NetworkControls
    /// The session's wire trace, when it is on.
    let wireTrace: WireTrace?
    /// Whether the session's own limits pass ``TransferSettings/validate(url:)``: a request
    /// that overrides none of them needs no check of its own.
    let limitsAreValid: Bool
    /// The session's HSTS store (nil: HSTS off), asked at each redirect hop and taught by
    /// verified HTTPS responses.
    let hsts: HSTSStore?
    /// Whether plain-HTTP hops are refused (``SessionConfiguration/httpsOnly``).
    let httpsOnly: Bool
    /// Whether either is on: a redirect hop then passes ``HTTPSRequirement``.
    let requiresHTTPSCheck: Bool
    /// The trust policies by host, asked whether a connection validated its chain before a
    /// `Strict-Transport-Security` field teaches ``hsts`` anything.
    let trust: TrustConfiguration
    /// The session's alternative services (nil: off), staged on each HTTPS hop's handle.
    let alternativeServices: AlternativeServices?
    /// Why the network controls or the alternative services make every request fail, or nil.
    let networkProblem: String?
    /// Whether HTTPS responses carry the server's certificates (``SessionConfiguration/capturesPeerCertificates``).
    let capturesPeerCertificates: Bool

    init(configuration: SessionConfiguration) {
        timeouts = configuration.timeouts
        redirectPolicy = configuration.redirectPolicy
        maximumBodySize = configuration.maximumBodySize
        decompressionLimit = configuration.decompressionLimit
        automaticDecompression = configuration.automaticDecompression
        httpVersion = configuration.httpVersion
        proxy = configuration.proxy
        userAgent = configuration.userAgent
        acceptLanguage = configuration.acceptLanguage
        defaultHeaders = configuration.defaultHeaders
        progressInterval = configuration.progressInterval
        streamBufferSize = configuration.streamBufferSize
        cookieStorage = configuration.cookieStorage
        storesCookies = configuration.cookieStorage != nil
        credentials = configuration.httpCredentials
        expectContinue = configuration.expectContinue
        network = configuration.network
        hsts = configuration.hsts
        alternativeServices = configuration.alternativeServices
        networkProblem = configuration.network.problem ?? configuration.alternativeServices?.problem
        trust = configuration.trust
        capturesPeerCertificates = configuration.capturesPeerCertificates
        httpsOnly = configuration.httpsOnly
        requiresHTTPSCheck = configuration.hsts != nil || configuration.httpsOnly
        wireTrace = configuration.wireTrace.flatMap { $0.isEnabled ? $0 : nil }
        limitsAreValid = (try? TransferSettings.validate(
            timeouts: timeouts, proxy: proxy, expectContinue: expectContinue, maximumBodySize: maximumBodySize,
            networkProblem: networkProblem, url: URL(fileURLWithPath: "/"))) != nil
    }
}
