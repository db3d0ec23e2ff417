/// Request latencies in nanoseconds, with nearest-rank percentiles.
public struct LatencySamples: Sendable {
    private var nanoseconds: [UInt64] = []

    /// An empty set of samples with room for `capacity` entries.
    public init(capacity: Int = 0) { nanoseconds.reserveCapacity(capacity) }

    /// Adds one latency.
    public mutating func add(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        nanoseconds.append(UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000))
    }

    /// Adds every sample of another set.
    public mutating func merge(_ other: LatencySamples) { nanoseconds += other.nanoseconds }

    /// The sum of all samples, in seconds.
    public var totalSeconds: Double { Double(nanoseconds.reduce(0, +)) / 1e9 }

    /// How many samples there are.
    public var count: Int { nanoseconds.count }

    /// The nearest-rank percentiles in milliseconds, in the order asked, or nils without
    /// samples. The samples are sorted once for all of them: the C loop sorts its latencies
    /// once too, and callgrind counts the harness's sorting as the client's instructions.
    public func percentilesMilliseconds(_ percents: Double...) -> [Double?] {
        guard !nanoseconds.isEmpty else { return percents.map { _ in nil } }
        let sorted = nanoseconds.sorted()
        return percents.map { percent in
            let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
            let index = min(max(rank - 1, 0), sorted.count - 1)
            return Double(sorted[index]) / 1_000_000
        }
    }
}
