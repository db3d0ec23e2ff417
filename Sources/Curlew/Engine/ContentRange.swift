import Foundation

/// A `Content-Range` field: `bytes first-last/total`, or `bytes */total` (RFC 9110 §14.4).
struct ContentRange: Equatable {
    /// The first byte of the range; nil for `*`.
    let start: Int64?
    /// The last byte of the range; nil for `*`.
    let end: Int64?
    /// The whole length; nil for `*`.
    let total: Int64?

    init?(_ value: String?) {
        guard let value else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        if halves[1] == "*" {
            total = nil
        } else {
            guard let parsed = Int64(halves[1]), parsed >= 0 else { return nil }
            total = parsed
        }
        if halves[0] == "*" {
            start = nil
            end = nil
        } else {
            let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0, last >= first else {
                return nil
            }
            if let total, last >= total { return nil }
            start = first
            end = last
        }
    }
}
