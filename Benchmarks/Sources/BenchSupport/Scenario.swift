/// The scenarios of issue 5; each client binary runs exactly one per invocation.
public enum Scenario: String, Sendable, CaseIterable {
    /// Sequential GETs of a 1 KiB body over one keep-alive connection.
    case smallC1 = "small-c1"
    /// GETs of a 1 KiB body at concurrency 64 over HTTP/1.1.
    case smallC64 = "small-c64"
    /// GETs of a 1 KiB body at concurrency 64 over TLS with HTTP/2 multiplexing.
    case h2C64 = "h2-c64"
    /// A 1 GiB body read through a streaming API and discarded.
    case downloadStream = "download-stream"
    /// A 1 GiB body written to a file.
    case downloadFile = "download-file"
    /// A 256 MiB body uploaded from a file.
    case upload
    /// Many concurrent slow responses on one client instance.
    case manyStreams = "many-streams"

    /// Whether the scenario counts small requests (req/s, latency) rather than bytes.
    public var isRequestScenario: Bool {
        switch self {
        case .smallC1, .smallC64, .h2C64: return true
        case .downloadStream, .downloadFile, .upload, .manyStreams: return false
        }
    }
}
