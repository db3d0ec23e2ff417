/// A registered stub, as ``HTTPStubs/register(_:times:responses:)`` returns it: ask the stubs
/// how often it matched (``HTTPStubs/matchCount(of:)``) and which requests it answered.
public struct StubRegistration: Sendable, Hashable, CustomStringConvertible {
    /// The stub's number, in registration order from 1.
    public let number: Int
    /// What the stub matches, as its rule reads.
    public let rule: String

    /// `#1 GET https://api.example.com/items`.
    public var description: String { "#\(number) \(rule)" }
}
