import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes

/// Runs requests. An actor that owns one libcurl multi handle, driven by its own thread.
///
/// ```swift
/// let session = Session()
/// let user = try await session.request("https://api.example.com/users/42")
///     .validate()
///     .decode(User.self)
/// await session.shutdown()
/// ```
///
/// Making a request is synchronous and cheap; it starts on first consumption. Requests keep
/// their session alive. `shutdown()` fails the requests in flight with
/// ``CurlewError/Kind/sessionShutdown`` and joins the thread; a session that is simply
/// released shuts down by itself once its last request is gone.
public actor Session {
    /// The settings shared by the session's requests.
    public nonisolated let configuration: SessionConfiguration
    /// Interceptors applied to every request, before the request's own.
    public nonisolated let interceptors: [any RequestInterceptor]
    nonisolated let loop: CurlLoop
    /// Tracing and metrics, resolved once.
    nonisolated let instrumentation: SessionInstrumentation
    /// The session's part of every transfer's settings, made once.
    nonisolated let transferSettings: SessionTransferSettings
    /// The settings of every request that overrides none of the session's.
    private nonisolated let plainTransferSettings: TransferSettings

    /// A process-wide session with the default configuration. Never shut it down.
    public static let shared = Session()

    /// Creates a session and starts its thread.
    public init(configuration: SessionConfiguration = .default, interceptors: [any RequestInterceptor] = []) {
        self.init(configuration: configuration, interceptors: interceptors, networkNamespacePath: nil)
    }

    /// A session whose thread runs in the network namespace at `networkNamespacePath` (such as
    /// `/run/netns/NAME`), so that its connections leave from there; nil keeps the process's.
    /// For tests.
    init(configuration: SessionConfiguration, interceptors: [any RequestInterceptor], networkNamespacePath: String?) {
        self.configuration = configuration
        self.interceptors = interceptors
        let transport = Self.transportConfiguration(configuration)
        loop = CurlLoop(configuration: transport, networkNamespacePath: networkNamespacePath)
        instrumentation = SessionInstrumentation(tracing: configuration.tracing, metrics: configuration.metrics)
        transferSettings = SessionTransferSettings(configuration: transport)
        plainTransferSettings = TransferSettings(session: transferSettings, options: RequestOptions())
    }

    /// `configuration` as the loop and the transfers use it: its proxy with the environment read
    /// now, once (``ProxyConfiguration/resolvingEnvironment(_:)``), so that the handles, the
    /// error messages and `cURLDescription()` agree on the proxy in use.
    static func transportConfiguration(
        _ configuration: SessionConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> SessionConfiguration {
        var transport = configuration
        transport.proxy = configuration.proxy.resolvingEnvironment(environment)
        transport.network.environmentProblem = configuration.network.dnsOverHTTPS?.environmentProxyProblem(
            sessionProxy: configuration.proxy, environment: environment)
        return transport
    }

    /// The settings of a transfer of a request with `options`: the session's shared ones when
    /// it overrides nothing.
    nonisolated func transferSettings(for options: RequestOptions) -> TransferSettings {
        options.isUntouchedDefault ? plainTransferSettings : TransferSettings(session: transferSettings, options: options)
    }

    deinit {
        loop.shutdownInBackground()
    }

    /// An executor that runs tasks on the session's own thread, the one that drives libcurl.
    ///
    /// A task that awaits many requests in a row spends much of its time changing threads:
    /// each request hands its transfer to the session's thread, which wakes the task on the
    /// global pool when the response is in. Run such a task on this executor and both hops
    /// disappear — requests start and finish on the thread where the task already runs:
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(session.taskExecutor) {
    ///     for id in ids {
    ///         let user = try await session.request("https://api.example.com/users/\(id)").decode(User.self)
    ///         try await store(user)
    ///     }
    /// }
    /// ```
    ///
    /// Use it only for work that does not block: while a job runs on this thread, no transfer
    /// of the session moves. Once the session shuts down, jobs run on the global executor.
    public nonisolated var taskExecutor: any TaskExecutor { loop }

    /// Fails every request in flight with ``CurlewError/Kind/sessionShutdown``, stops the
    /// session's thread and waits for it to exit. Later requests fail at once.
    public func shutdown() async {
        await loop.shutdown()
    }

    // MARK: Making requests

    /// A request to `url`.
    ///
    /// Invalid input (a malformed URL, an unsupported scheme, a header with CR or LF) does not
    /// crash or throw here: the request fails with a clear ``CurlewError`` when it is consumed.
    public nonisolated func request(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, headers: RequestHeaders = [:],
        body: RequestBody? = nil, options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        DataRequest(session: self, build: RequestBuilder.build(url: url, method: method, headers: headers, body: body, options: options))
    }

    /// A request built in full beforehand.
    public nonisolated func request(_ request: OutgoingRequest) -> DataRequest {
        DataRequest(session: self, build: RequestBuilder.validate(request))
    }

    /// A request converted from Foundation's `URLRequest`.
    public nonisolated func request(_ urlRequest: URLRequest) -> DataRequest {
        DataRequest(session: self, build: RequestBuilder.build(urlRequest))
    }

}

/// Runs `body` with a new session and shuts the session down afterwards, also on errors.
public func withSession<T: Sendable>(
    configuration: SessionConfiguration = .default, interceptors: [any RequestInterceptor] = [],
    _ body: (Session) async throws -> T
) async throws -> T {
    let session = Session(configuration: configuration, interceptors: interceptors)
    do {
        let value = try await body(session)
        await session.shutdown()
        return value
    } catch {
        await session.shutdown()
        throw error
    }
}
