import Foundation

/// Transforms a response body before a serializer reads it, for example to strip an
/// anti-XSSI prefix.
///
/// Serializers that take a preprocessor run it before the empty-body check, so a body that
/// is nothing but the prefix counts as empty. Any serializer can be given one with
/// ``ResponseSerializer/preprocessed(by:)``.
public protocol DataPreprocessor: Sendable {
    /// Returns the body to serialize.
    ///
    /// - Throws: any error, which the serializer reports as
    ///   ``CurlewError/Kind/serializationFailed``.
    func preprocess(_ data: Data) throws -> Data
}

/// Leaves the body as it is. The default preprocessor.
public struct PassthroughPreprocessor: DataPreprocessor {
    /// Creates the preprocessor.
    public init() {}
    /// Returns `data` unchanged.
    public func preprocess(_ data: Data) throws -> Data { data }
}

/// Strips an anti-XSSI prefix such as Google's `)]}',` followed by a newline, which some
/// APIs put before JSON so that the response cannot be run as a script.
///
/// A body without the prefix is left as it is.
public struct XSSIPreprocessor: DataPreprocessor {
    /// The prefixes recognised, longest first.
    let prefixes: [Data]

    /// Recognises the given prefixes; the longest matching one is removed. By default
    /// `)]}',\n`, `)]}'\n`, `)]}',` and `)]}'` (and `\r\n` variants).
    public init(prefixes: [String] = [")]}',\r\n", ")]}',\n", ")]}'\r\n", ")]}'\n", ")]}',", ")]}'"]) {
        self.prefixes = prefixes.map { Data($0.utf8) }.sorted { $0.count > $1.count }
    }

    /// `data` without the first matching prefix.
    public func preprocess(_ data: Data) throws -> Data {
        for prefix in prefixes where data.starts(with: prefix) {
            return data.dropFirst(prefix.count)
        }
        return data
    }
}

extension DataPreprocessor where Self == XSSIPreprocessor {
    /// Strips an anti-XSSI prefix such as `)]}',\n`.
    public static var xssi: XSSIPreprocessor { XSSIPreprocessor() }
}

extension Response where Value == Data {
    /// The body after `preprocessor`, with its failure reported as a serialization error.
    func preprocessedBody(_ preprocessor: any DataPreprocessor) throws(CurlewError) -> Data {
        do {
            return try preprocessor.preprocess(value)
        } catch {
            throw self.error(.serializationFailed, "the preprocessor failed: \(error)", underlying: error)
        }
    }
}
