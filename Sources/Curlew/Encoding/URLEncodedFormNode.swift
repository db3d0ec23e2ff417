import Foundation

/// A value on its way to `application/x-www-form-urlencoded` text: the tree both the
/// `Encodable` path and the untyped `[String: any Sendable]` path build before serializing.
indirect enum URLEncodedFormNode: Equatable {
    /// A scalar, already rendered as text (bools, dates and numbers converted by the options).
    case string(String)
    /// An explicit nil; rendered according to ``URLEncodedFormEncoder/NilEncoding``.
    case null
    /// An ordered list.
    case array([URLEncodedFormNode])
    /// Named members; serialized in sorted key order.
    case object([String: URLEncodedFormNode])
}
