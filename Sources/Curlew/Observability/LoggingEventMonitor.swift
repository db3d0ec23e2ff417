import Foundation
import HTTPTypes
import Logging

/// Logs requests and responses through swift-log, like HTTPTransport's
/// `LogRequestInterceptor` / `LogResponseInterceptor`.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.eventMonitors = [LoggingEventMonitor(logger: Logger(label: "api"), detail: .headers)]
/// ```
///
/// Each attempt logs a line when it starts (`→ GET https://…`) and when the request finishes
/// (`← 200 GET https://… in 12.3 ms`); retries and failures are logged too, failures at
/// ``failureLevel``. With ``Detail/headers`` the header fields follow, and with
/// ``Detail/everything`` the bodies as well (text up to ``maximumBodyLength`` bytes).
///
/// Secrets are redacted by default: the values of `Authorization`, `Proxy-Authorization`,
/// `Cookie` and `Set-Cookie`, a password in the URL, and — in form and JSON bodies — fields
/// such as `access_token`, `refresh_token` and `client_secret`. The password of a request's
/// ``HTTPCredential`` is never logged: with ``Detail/headers`` its method and user name are.
public struct LoggingEventMonitor: EventMonitor {
    /// How much is logged.
    public enum Detail: Int, Sendable, Comparable {
        /// Method, URL, status, duration.
        case url
        /// Also the header fields.
        case headers
        /// Also the bodies.
        case everything

        /// Less detail first.
        public static func < (a: Detail, b: Detail) -> Bool { a.rawValue < b.rawValue }
    }

    /// The header fields whose values are redacted by default.
    public static let defaultRedactedHeaders: Set<HTTPField.Name> = Redaction.credentialHeaders
    /// The body fields (form or JSON) whose values are redacted by default.
    public static let defaultRedactedBodyFields: Set<String> = Redaction.secretFieldNames

    /// Where the lines go.
    public var logger: Logger
    /// How much is logged.
    public var detail: Detail
    /// The level of the request and response lines.
    public var level: Logger.Level
    /// The level of failures and retries.
    public var failureLevel: Logger.Level
    /// Header fields whose values are replaced by `<redacted>`; unless the set is empty, so are
    /// those of fields named like secrets (a name containing `auth`, `token`, `secret`,
    /// `api-key`, `session`, `signature`, …), as everywhere Curlew prints a request.
    public var redactedHeaders: Set<HTTPField.Name>
    /// Form and JSON body fields whose values are replaced by `<redacted>`.
    public var redactedBodyFields: Set<String>
    /// The most body bytes shown with ``Detail/everything``.
    public var maximumBodyLength: Int

    /// Creates a monitor; secrets are redacted unless the sets are emptied.
    public init(
        logger: Logger, detail: Detail = .url, level: Logger.Level = .info, failureLevel: Logger.Level = .warning,
        redactedHeaders: Set<HTTPField.Name> = LoggingEventMonitor.defaultRedactedHeaders,
        redactedBodyFields: Set<String> = LoggingEventMonitor.defaultRedactedBodyFields, maximumBodyLength: Int = 4096
    ) {
        self.logger = logger
        self.detail = detail
        self.level = level
        self.failureLevel = failureLevel
        self.redactedHeaders = redactedHeaders
        self.redactedBodyFields = redactedBodyFields
        self.maximumBodyLength = maximumBodyLength
    }

    // MARK: Hooks

    /// Logs the request of each attempt.
    public func request(_ id: RequestID, didStart request: OutgoingRequest, attempt: Int) {
        var text = "→ \(request.method.rawValue) \(redacted(request.url))"
        if attempt > 1 { text += " (attempt \(attempt))" }
        if detail >= .headers {
            text += lines(request.headerFields)
            if let credential = request.options.httpCredential {
                // The password is never logged, whatever the redaction sets say.
                text += "\n  (authentication: \(credential.method) as \(credential.username.debugDescription), password <redacted>)"
            }
        }
        if detail >= .everything, let body = request.body {
            switch body.storage {
            case .data(let data): text += "\n" + render(data, contentType: request.headerFields[.contentType])
            case .file(let url): text += "\n  <body from file \(url.path)>"
            case .stream: text += "\n  <streamed body>"
            }
        }
        logger.log(level: level, "\(text)", metadata: metadata(id))
    }

    /// Logs that an attempt waits for the network, with the path.
    public func request(
        _ id: RequestID, isWaitingForConnectivity request: OutgoingRequest, path: NetworkPath, attempt: Int
    ) {
        logger.log(
            level: failureLevel,
            "⏸ \(request.method.rawValue) \(redacted(request.url)) waits for connectivity: \(path)",
            metadata: metadata(id))
    }

    /// Logs a retry with its reason and delay.
    public func request(
        _ id: RequestID, willRetry request: OutgoingRequest, after error: CurlewError, attempt: Int, delay: Duration
    ) {
        logger.log(
            level: failureLevel,
            "↻ \(request.method.rawValue) \(redacted(request.url)) attempt \(attempt) failed (\(error.kind): \(error.message)); retrying in \(delay)",
            metadata: metadata(id))
    }

    /// Logs the response, or the failure.
    public func request(
        _ id: RequestID, didFinish request: OutgoingRequest?, with result: Result<TransferCompletion, CurlewError>,
        attempts: Int
    ) {
        let method = request?.method.rawValue ?? "?"
        switch result {
        case .success(let completion):
            let milliseconds = completion.metrics.total.inSeconds * 1000
            var text = "← \(completion.head.status.code) \(method) \(redacted(completion.url))"
            text += " in \(String(format: "%.1f", milliseconds)) ms"
            if attempts > 1 { text += " after \(attempts) attempts" }
            if detail >= .headers { text += lines(completion.head.headerFields) }
            if detail >= .everything {
                if let body = completion.body {
                    text += "\n" + render(body, contentType: completion.head.headerFields[.contentType])
                } else if let file = completion.fileURL {
                    text += "\n  <body written to \(file.path)>"
                }
            }
            logger.log(level: level, "\(text)", metadata: metadata(id))
        case .failure(let error):
            let url = (error.url ?? request?.url).map(redacted) ?? "?"
            var text = "✗ \(method) \(url) failed: \(error.kind): \(error.message)"
            if let status = error.status { text += " (HTTP \(status.code))" }
            logger.log(level: failureLevel, "\(text)", metadata: metadata(id))
        }
    }

    /// Logs serializer failures.
    public func request<Value: Sendable>(_ id: RequestID, didSerialize result: Result<Response<Value>, CurlewError>) {
        guard case .failure(let error) = result, error.kind == .serializationFailed || error.kind == .emptyResponse else {
            return
        }
        let url = error.url.map(redacted) ?? "?"
        logger.log(level: failureLevel, "✗ \(url) could not be serialized: \(error.message)", metadata: metadata(id))
    }

    // MARK: Rendering

    private func metadata(_ id: RequestID) -> Logger.Metadata {
        ["curlew.request": "\(id.rawValue)"]
    }

    /// The URL with any password replaced by `***` (the user name stays).
    func redacted(_ url: URL) -> String {
        Redaction.string(url)
    }

    /// One indented line per field, secrets redacted.
    func lines(_ fields: HTTPFields) -> String {
        fields.map { field in
            // A set emptied by the caller turns header redaction off; otherwise fields named
            // like secrets (`X-Api-Key`, `X-Auth-Token`, …) are redacted beside the set's.
            let secret = redactedHeaders.contains(field.name) || (!redactedHeaders.isEmpty && Redaction.isSecretHeader(field.name))
            let value = secret ? "<redacted>" : field.value
            return "\n  \(field.name.rawName): \(value)"
        }.joined()
    }

    /// The body as text with secret fields redacted, or a size for binary bodies.
    func render(_ body: Data, contentType: String?) -> String {
        guard !body.isEmpty else { return "  <empty body>" }
        let shown = Redaction.body(body, contentType: contentType, secrets: redactedBodyFields, placeholder: "<redacted>")
        guard let text = String(data: shown.prefix(maximumBodyLength), encoding: .utf8) else {
            return "  <\(body.count) bytes of binary data>"
        }
        let suffix = shown.count > maximumBodyLength ? "… (\(shown.count) bytes in all)" : ""
        return "  " + text + suffix
    }
}
