import Foundation
import HTTPTypes

/// One set of untyped parameters together with how it is encoded, as in HTTPTransport's
/// `HTTPRequestParameters`. Several sets can go on one request through ``RequestParameters``,
/// for example URL parameters in the query and JSON in the body at once.
public struct ParameterSet: Sendable {
    /// How a set is encoded, and so where it goes.
    public enum Encoding: Sendable {
        /// URL form encoding appended to the URL query, whatever the method.
        case query
        /// URL form encoding in the body (`application/x-www-form-urlencoded`).
        case form
        /// JSON in the body.
        case json
        /// A property list (`.xml` or `.binary`) in the body.
        case propertyList(PropertyListSerialization.PropertyListFormat)
        /// A custom encoder, applied with its untyped `encode(_:into:)` after the built-in
        /// encodings. Custom sets are never merged.
        case custom(any ParameterEncoder)

        /// The group a set merges within; nil for custom sets.
        var mergeGroup: MergeGroup? {
            switch self {
            case .query: return .query
            case .form: return .body(.form)
            case .json: return .body(.json)
            case .propertyList: return .body(.propertyList)
            case .custom: return nil
            }
        }

        enum BodyKind: Hashable { case form, json, propertyList }
        enum MergeGroup: Hashable {
            case query
            case body(BodyKind)
        }

        /// Whether this encoding writes the body.
        var isBodyEncoding: Bool {
            if case .body = mergeGroup { return true }
            return false
        }
    }

    /// The parameters.
    public var parameters: Parameters
    /// How they are encoded.
    public var encoding: Encoding

    /// Creates a set.
    public init(_ parameters: Parameters, encoding: Encoding) {
        self.parameters = parameters
        self.encoding = encoding
    }

    /// Reads or writes one parameter.
    public subscript(name: String) -> (any Sendable)? {
        get { parameters[name] }
        set { parameters[name] = newValue }
    }
}
