/// The command line shared by every client binary.
///
/// `CLIENT --scenario NAME --url URL [--count N] [--concurrency C] [--cacert PEM]
///  [--file PATH] [--warmup N] [--executor global|session]`
public struct BenchArguments: Sendable {
    /// The scenario to run.
    public var scenario: Scenario
    /// The URL every request of the scenario goes to.
    public var url: String
    /// How many requests (or streams) are measured.
    public var count: Int
    /// How many requests are in flight at once.
    public var concurrency: Int
    /// A PEM file of the CA that signed the server's certificate, for https URLs.
    public var caCertificatePath: String?
    /// The upload source, or the download destination.
    public var filePath: String?
    /// How many unmeasured requests run first, to open connections and warm caches.
    public var warmup: Int
    /// `--executor`: which executor a client whose library offers a choice runs its tasks on
    /// (for Curlew: `global`, the default, or `session`).
    public var executor: String

    /// An error in the command line.
    public struct UsageError: Error, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// Parses `CommandLine.arguments` (without the program name).
    public init(_ arguments: [String]) throws {
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let key = arguments[index]
            guard key.hasPrefix("--"), index + 1 < arguments.count else {
                throw UsageError(description: "expected '--option value', got '\(key)'")
            }
            values[String(key.dropFirst(2))] = arguments[index + 1]
            index += 2
        }
        guard let scenarioName = values["scenario"], let scenario = Scenario(rawValue: scenarioName)
        else {
            let names = Scenario.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError(description: "--scenario must be one of: \(names)")
        }
        guard let url = values["url"] else { throw UsageError(description: "--url is required") }
        self.scenario = scenario
        self.url = url
        self.count = try Self.positive(values["count"], name: "count", default: 1)
        self.concurrency = try Self.positive(values["concurrency"], name: "concurrency", default: 1)
        self.warmup = try Self.positive(values["warmup"], name: "warmup", default: 0, allowZero: true)
        self.caCertificatePath = values["cacert"]
        self.filePath = values["file"]
        self.executor = values["executor"] ?? "global"
    }

    /// The most requests in flight at once: `count` for many-streams (all of them at once),
    /// `concurrency` otherwise. Every client limits its connections to exactly this.
    public var inFlight: Int { scenario == .manyStreams ? count : concurrency }

    /// The file path, or a usage error naming the scenario that needs one.
    public func requireFilePath() throws -> String {
        guard let filePath else {
            throw UsageError(description: "--file is required for \(scenario.rawValue)")
        }
        return filePath
    }

    private static func positive(
        _ text: String?, name: String, default value: Int, allowZero: Bool = false
    ) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), number > 0 || (allowZero && number == 0) else {
            throw UsageError(description: "--\(name) must be a positive integer, not '\(text)'")
        }
        return number
    }
}
