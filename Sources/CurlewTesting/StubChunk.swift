import Foundation

/// One piece of a streamed stub body, sent after an optional pause.
public struct StubChunk: Sendable, Hashable {
    /// The bytes of the piece.
    public var data: Data
    /// How long the stub waits before it sends the piece.
    public var delay: Duration

    /// A piece of `data`, sent `delay` after the previous one (or after the head).
    public init(_ data: Data, after delay: Duration = .zero) {
        self.data = data
        self.delay = delay
    }

    /// A piece of UTF-8 `text`, sent `delay` after the previous one (or after the head).
    public init(_ text: String, after delay: Duration = .zero) {
        self.init(Data(text.utf8), after: delay)
    }
}
