@_spi(Stubbing) import Curlew

extension SessionConfiguration {
    /// A configuration whose session sends nothing: `stubs` answers every request.
    ///
    /// ```swift
    /// let session = Session(configuration: .stubbed(by: stubs))
    /// ```
    ///
    /// Start from `configuration` to keep your own settings (cookies, cache, timeouts, event
    /// monitors, …). The proxy is set to `ProxyConfiguration.direct`: a proxy from the
    /// environment would otherwise take the blame for stubbed connection failures.
    public static func stubbed(by stubs: HTTPStubs, from configuration: SessionConfiguration = .default) -> SessionConfiguration {
        var stubbed = configuration
        stubbed.stub(with: stubs)
        return stubbed
    }

    /// Lets `stubs` answer every request of sessions made with this configuration, in place of
    /// the network (see ``stubbed(by:from:)``).
    public mutating func stub(with stubs: HTTPStubs) {
        transportStub = StubTransport(stubs: stubs)
        proxy = .direct
    }
}

/// The seam between ``HTTPStubs`` and Curlew's transfers.
struct StubTransport: TransportStub {
    let stubs: HTTPStubs

    func answer(_ request: TransportStubRequest) async -> TransportStubAnswer {
        await stubs.answer(request)
    }
}
