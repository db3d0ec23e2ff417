import Foundation
import HTTPTypes

/// What may join a partial download to the rest of it (RFC 9110 §8.8, §13.1.5, §15.3.7.3): a
/// strong entity tag, else a `Last-Modified` date that is strong — at least 60 seconds before
/// the response's `Date` (§8.8.2.2). A weak entity tag says two bodies are equivalent, not that
/// they are the same bytes, so it never joins two ranges; and while a response has an entity
/// tag, its date is not used either (§13.1.5).
enum ResumeValidator {
    /// The validator a partial file of this response's body can be resumed with, or nil.
    static func of(_ fields: HTTPFields) -> String? {
        if let tag = fields[.eTag] {
            let trimmed = tag.trimmingCharacters(in: .whitespaces)
            return isStrongEntityTag(trimmed) ? trimmed : nil
        }
        guard let text = fields[.lastModified]?.trimmingCharacters(in: .whitespaces), isVisibleText(text),
            let modified = CookieDateParser.parse(text), let date = fields[.date].flatMap(CookieDateParser.parse),
            date.timeIntervalSince(modified) >= 60
        else { return nil }
        return text
    }

    /// Whether `validator`, from resume data that may have been stored and edited, can be sent
    /// as `If-Range`: a strong entity tag or an HTTP date, and nothing else (no weak tag, no
    /// control characters).
    static func isUsable(_ validator: String) -> Bool {
        isStrongEntityTag(validator) || (isVisibleText(validator) && CookieDateParser.parse(validator) != nil)
    }

    /// Whether a `206`'s fields carry `stored` by strong comparison (§8.8.3.2): the same strong
    /// entity tag, character for character, or for a date, a `Last-Modified` of the same time.
    /// A response without the validator does not match: its range cannot be shown to belong to
    /// the partial file's representation.
    static func matches(_ fields: HTTPFields, stored: String) -> Bool {
        if isEntityTag(stored) {
            guard let tag = fields[.eTag]?.trimmingCharacters(in: .whitespaces) else { return false }
            return isStrongEntityTag(tag) && tag == stored
        }
        guard let modified = fields[.lastModified].flatMap(CookieDateParser.parse),
            let storedDate = CookieDateParser.parse(stored)
        else { return false }
        return modified == storedDate
    }

    /// Whether the fields name a validator of `stored`'s kind that is not `stored`: a response
    /// about another representation (for a `416`, which need not name one).
    static func contradicts(_ fields: HTTPFields, stored: String) -> Bool {
        let present = isEntityTag(stored) ? fields[.eTag] != nil : fields[.lastModified] != nil
        return present && !matches(fields, stored: stored)
    }

    /// What a response's validator was, for messages: its `ETag`, else `Last-Modified`.
    static func described(_ fields: HTTPFields) -> String {
        (fields[.eTag] ?? fields[.lastModified]).map { "'\($0)'" } ?? "none"
    }

    private static func isEntityTag(_ value: String) -> Bool {
        value.utf8.first == UInt8(ascii: "\"") || value.hasPrefix("W/")
    }

    /// `"…"` of `etagc` characters: `%x21 / %x23-7E / obs-text` (§8.8.3).
    static func isStrongEntityTag(_ value: String) -> Bool {
        let bytes = value.utf8
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else { return false }
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }
    }

    /// Printable ASCII and spaces only: a date as a field value carries nothing else.
    private static func isVisibleText(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }
}
