/// Progress of one direction of a transfer: a plain value, not Foundation's `Progress`.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes done so far.
    public let completedBytes: Int64
    /// The expected total, when known.
    public let totalBytes: Int64?
    /// Average rate since the transfer started.
    public let bytesPerSecond: Double
    /// Seconds since the transfer started.
    public let elapsed: Duration

    /// Creates a progress value.
    public init(completedBytes: Int64, totalBytes: Int64?, bytesPerSecond: Double, elapsed: Duration) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.bytesPerSecond = bytesPerSecond
        self.elapsed = elapsed
    }

    /// Done as a fraction in 0...1; 0 while the total is unknown, unless finished.
    public var fractionCompleted: Double {
        guard let totalBytes, totalBytes > 0 else { return 0 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }

    /// Estimated time to finish at the average rate so far, when it can be estimated.
    public var estimatedTimeRemaining: Duration? {
        guard let totalBytes, bytesPerSecond > 0 else { return nil }
        let remaining = Double(max(0, totalBytes - completedBytes)) / bytesPerSecond
        return .milliseconds(Int64(remaining * 1000))
    }

    /// Whether all expected bytes are done.
    public var isFinished: Bool { totalBytes.map { completedBytes >= $0 } ?? false }
}
