/// An XPath expression could not be compiled or evaluated.
public struct XPathError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The expression as given.
    public let expression: String
    /// libxml2's explanation, for example "Undefined namespace prefix".
    public let message: String

    /// Creates an error.
    public init(expression: String, message: String) {
        self.expression = expression
        self.message = message
    }

    public var description: String { "XPath '\(expression)': \(message)" }
}
