/// The result of a lossy collection decode: the elements that decoded, and for each one that
/// did not, its position and the reason.
///
/// It is a collection of the decoded elements, so it can be used like an array:
///
/// ```swift
/// let users = try await session.request(url)
///     .serialized(by: .lossyCollection(of: User.self, keyPath: "data.items")).value
/// for user in users { … }
/// for failure in users.failures { log("item \(failure.index): \(failure.error)") }
/// ```
public struct LossyCollection<Element: Sendable>: Sendable, RandomAccessCollection {
    /// One element that failed to decode.
    public struct Failure: Sendable, CustomStringConvertible {
        /// The element's position in the source array.
        public let index: Int
        /// Why it failed; usually a `DecodingError`.
        public let error: any Error

        /// Creates a failure record.
        public init(index: Int, error: any Error) {
            self.index = index
            self.error = error
        }

        /// The index and the reason.
        public var description: String { "element \(index): \(error)" }
    }

    /// The elements that decoded, in source order.
    public let elements: [Element]
    /// The elements that failed, in source order.
    public let failures: [Failure]

    /// Creates a result.
    public init(elements: [Element], failures: [Failure]) {
        self.elements = elements
        self.failures = failures
    }

    /// Whether every element decoded.
    public var isComplete: Bool { failures.isEmpty }

    /// The number of elements in the source array, decoded or not.
    public var sourceCount: Int { elements.count + failures.count }

    /// The position of the first decoded element.
    public var startIndex: Int { elements.startIndex }
    /// The position after the last decoded element.
    public var endIndex: Int { elements.endIndex }
    /// The decoded element at `position`.
    public subscript(position: Int) -> Element { elements[position] }
}
