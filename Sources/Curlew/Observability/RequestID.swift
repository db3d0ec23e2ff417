import Synchronization

/// Identifies one request across the hooks of an ``EventMonitor``.
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    /// A number unique within the process.
    public let rawValue: UInt64

    private static let counter = Atomic<UInt64>(0)

    static func next() -> RequestID {
        RequestID(rawValue: counter.add(1, ordering: .relaxed).newValue)
    }

    /// `#` and the number.
    public var description: String { "#\(rawValue)" }
}
