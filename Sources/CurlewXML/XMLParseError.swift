/// Why a document or an element stream could not be parsed, and where.
///
/// The description reads `line L, column C: message`. Lines and columns count from 1; they
/// are 0 when libxml2 did not know the position.
public struct XMLParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is, as an extensible set of kinds.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Code: String, Sendable {
            case malformed, entityExpansion, unsupportedEncoding, inputTooLarge, recordTooLarge
            case unsupportedDeclaration
        }
        fileprivate let code: Code

        public var description: String { code.rawValue }

        /// The input is not well-formed XML (or libxml2 rejected it for another reason).
        public static let malformed = Kind(code: .malformed)
        /// Entity references expand to more text than allowed: a "billion laughs" or
        /// quadratic-blowup document.
        public static let entityExpansion = Kind(code: .entityExpansion)
        /// The requested character encoding is unknown to libxml2.
        public static let unsupportedEncoding = Kind(code: .unsupportedEncoding)
        /// The input is larger than libxml2 can take in one piece (2 GiB).
        public static let inputTooLarge = Kind(code: .inputTooLarge)
        /// A streamed element is larger than the stream's maximum record size.
        public static let recordTooLarge = Kind(code: .recordTooLarge)
        /// The stream met a declaration it does not support, such as an entity declaration.
        public static let unsupportedDeclaration = Kind(code: .unsupportedDeclaration)
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The explanation, from libxml2 or from CurlewXML.
    public let message: String
    /// The line of the input where the problem was found, from 1; 0 when unknown.
    public let line: Int
    /// The column of the input where the problem was found, from 1; 0 when unknown.
    public let column: Int
    /// libxml2's `xmlParserErrors` code, when libxml2 reported the error.
    public let libxml2Code: Int?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, line: Int = 0, column: Int = 0, libxml2Code: Int? = nil) {
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
        self.libxml2Code = libxml2Code
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}
