import Foundation
import HTTPTypes

/// Several ``ParameterSet``s for one request, merged by documented rules and then encoded.
///
/// ```swift
/// let parameters: RequestParameters = [
///     ParameterSet(["first_name": "John"], encoding: .query),
///     ParameterSet(["salary": 100_000], encoding: .json),
/// ]
/// try parameters.encode(into: &request)   // ?first_name=John, body {"salary":100000}
/// ```
///
/// ## Merge rules
///
/// Sets are taken in order (so the sets of a base endpoint, put first by
/// `Endpoint.with(parameters:)`, are overridden by the request's own):
/// 1. All `.query` sets merge into one dictionary; for the same key the later set wins.
/// 2. The body encodings (`.form`, `.json`, `.propertyList`) replace one another: a body set
///    of the same encoding as the current body merges into it (later keys win), a body set of
///    another encoding replaces it. So the last body encoding is the one sent.
/// 3. `.custom` sets are never merged; each is applied in order, after the built-in ones.
///
/// Merging is shallow: a key's value (a nested dictionary, say) is replaced as a whole.
public struct RequestParameters: Sendable, ExpressibleByArrayLiteral {
    /// The sets, in order.
    public var sets: [ParameterSet]

    /// Creates parameters from sets.
    public init(_ sets: [ParameterSet]) { self.sets = sets }

    /// Creates parameters from sets.
    public init(arrayLiteral elements: ParameterSet...) { self.sets = elements }

    /// These sets followed by `other`'s, so `other` wins where the rules let a later set win.
    /// Use it to put a request's parameters after those of a base request.
    func appending(_ other: RequestParameters) -> RequestParameters {
        RequestParameters(sets + other.sets)
    }

    /// The sets after merging: at most one query set, at most one body set, then the custom
    /// sets in order.
    func merged() -> [ParameterSet] {
        var query: ParameterSet?
        var body: ParameterSet?
        var custom: [ParameterSet] = []
        for set in sets {
            switch set.encoding.mergeGroup {
            case .query:
                query = RequestParameters.merge(query, with: set)
            case .body(let kind):
                if let current = body, current.encoding.mergeGroup == .body(kind) {
                    body = RequestParameters.merge(current, with: set)
                } else {
                    body = set
                }
            case nil:
                custom.append(set)
            }
        }
        return [query, body].compactMap { $0 } + custom
    }

    /// Merges and encodes the sets into `request`.
    ///
    /// - Parameters:
    ///   - request: the request the encoded sets are written into.
    ///   - formEncoder: the options for `.query` and `.form` sets.
    ///   - jsonOptions: the `JSONSerialization` options for `.json` sets.
    /// - Throws: ``CurlewError`` of kind ``CurlewError/Kind/invalidRequest`` when a set cannot
    ///   be encoded.
    public func encode(
        into request: inout OutgoingRequest, formEncoder: URLEncodedFormEncoder = URLEncodedFormEncoder(),
        jsonOptions: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
    ) throws {
        for set in merged() {
            switch set.encoding {
            case .query:
                try URLEncodedFormParameterEncoder(encoder: formEncoder, destination: .query)
                    .encode(set.parameters, into: &request)
            case .form:
                try URLEncodedFormParameterEncoder(encoder: formEncoder, destination: .form)
                    .encode(set.parameters, into: &request)
            case .json:
                try JSONParameterEncoder(serializationOptions: jsonOptions).encode(set.parameters, into: &request)
            case .propertyList(let format):
                try PropertyListParameterEncoder(format: format).encode(set.parameters, into: &request)
            case .custom(let encoder):
                try encoder.encode(set.parameters, into: &request)
            }
        }
    }

    private static func merge(_ current: ParameterSet?, with next: ParameterSet) -> ParameterSet {
        guard var merged = current else { return next }
        merged.parameters.merge(next.parameters) { _, later in later }
        merged.encoding = next.encoding
        return merged
    }
}
