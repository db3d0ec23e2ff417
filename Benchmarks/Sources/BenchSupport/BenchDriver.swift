import Foundation

/// Runs the one scenario named on the command line against a ``BenchClient`` and prints
/// one ``BenchResult`` JSON line on standard output.
public enum BenchDriver {
    /// Parses the arguments, makes the client, runs the scenario, prints the result.
    ///
    /// - Returns: the process exit status: 0 for ok or n/a, 1 for an error, 2 for bad usage.
    public static func main(
        clientName: String,
        makeClient: @Sendable (BenchArguments) async throws -> any BenchClient
    ) async -> Int32 {
        let arguments: BenchArguments
        do {
            arguments = try BenchArguments(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("\(clientName): \(error)\n".utf8))
            return 2
        }
        var result = BenchResult(client: clientName, scenario: arguments.scenario.rawValue)
        do {
            let client = try await makeClient(arguments)
            do {
                result = try await run(arguments, on: client)
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
        } catch let unsupported as BenchUnsupported {
            result.status = "n/a"
            result.note = unsupported.description
        } catch {
            result.status = "error"
            result.note = "\(error)"
        }
        print(result.jsonLine())
        return result.status == "error" ? 1 : 0
    }

    private static func run(_ arguments: BenchArguments, on client: any BenchClient) async throws
        -> BenchResult
    {
        var result = BenchResult(client: client.name, scenario: arguments.scenario.rawValue)
        let url = arguments.url
        let clock = ContinuousClock()
        switch arguments.scenario {
        case .smallC1, .smallC64, .h2C64:
            if arguments.warmup > 0 {
                let warm = await LoadRunner.run(
                    count: arguments.warmup, concurrency: arguments.concurrency, executor: client.taskExecutor
                ) { Int64(try await client.get(url)) }
                if warm.errors == arguments.warmup {
                    throw BenchFailure("every warm-up request failed: \(warm.firstError ?? "?")")
                }
            }
            let cpuBefore = ProcessMetrics.cpuSeconds()
            let start = clock.now
            let outcome = await LoadRunner.run(
                count: arguments.count, concurrency: arguments.concurrency, executor: client.taskExecutor
            ) { Int64(try await client.get(url)) }
            let seconds = (clock.now - start).seconds
            let cpu = ProcessMetrics.cpuSeconds() - cpuBefore
            result.count = arguments.count
            result.concurrency = arguments.concurrency
            result.seconds = seconds
            result.reqPerSecond = Double(outcome.latencies.count) / seconds
            let percentiles = outcome.latencies.percentilesMilliseconds(50, 99)
            (result.p50Milliseconds, result.p99Milliseconds) = (percentiles[0], percentiles[1])
            result.cpuSecondsPer1000 = cpu / Double(arguments.count) * 1000
            result.bytes = outcome.bytes
            record(outcome, in: &result)
        case .downloadStream, .downloadFile, .upload:
            let path = arguments.scenario == .downloadStream ? "" : try arguments.requireFilePath()
            let cpuBefore = ProcessMetrics.cpuSeconds()
            let start = clock.now
            let bytes = try await withTaskExecutorPreference(client.taskExecutor) { () async throws -> Int64 in
                switch arguments.scenario {
                case .downloadStream: try await client.stream(url)
                case .downloadFile: try await client.download(url, to: path)
                default: try await client.upload(url, from: path)
                }
            }
            let seconds = (clock.now - start).seconds
            result.count = 1
            result.seconds = seconds
            result.bytes = bytes
            result.megabytesPerSecond = Double(bytes) / 1_000_000 / seconds
            result.cpuSecondsPer1000 = (ProcessMetrics.cpuSeconds() - cpuBefore) * 1000
            result.errors = 0
        case .manyStreams:
            let baseline = ProcessMetrics.residentKiB()
            let start = clock.now
            let outcome = await LoadRunner.run(
                count: arguments.count, concurrency: arguments.count, executor: client.taskExecutor
            ) {
                try await client.stream(url)
            }
            let peak = ProcessMetrics.peakResidentKiB()
            let seconds = (clock.now - start).seconds
            result.count = arguments.count
            result.concurrency = arguments.count
            result.seconds = seconds
            result.meanInFlight = outcome.latencies.totalSeconds / seconds
            let percentiles = outcome.latencies.percentilesMilliseconds(50, 99)
            (result.p50Milliseconds, result.p99Milliseconds) = (percentiles[0], percentiles[1])
            result.bytes = outcome.bytes
            result.rssPerStreamKiB = Double(peak - baseline) / Double(arguments.count)
            record(outcome, in: &result)
        }
        result.peakRSSKiB = ProcessMetrics.peakResidentKiB()
        return result
    }

    private static func record(_ outcome: LoadRunner.Outcome, in result: inout BenchResult) {
        result.errors = outcome.errors
        if outcome.errors > 0 {
            result.status = "error"
            result.note = "\(outcome.errors) failed; first: \(outcome.firstError ?? "?")"
        }
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
