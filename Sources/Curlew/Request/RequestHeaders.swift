import Foundation
import HTTPTypes

/// The header fields a caller gives a request: the one header argument of every way to make
/// one (`Session.request`, `upload`, `download`, ``Endpoint``).
///
/// Write them as a dictionary literal, or wrap `HTTPFields` you already have:
///
/// ```swift
/// session.request(url, headers: ["Accept": "application/json", "X-Trace": traceID])
/// session.request(url, headers: RequestHeaders(fields))   // fields: HTTPFields
/// ```
///
/// Names compare without regard to case, as HTTP's do: a later name replaces an earlier one
/// that differs only in case (`["key": "a", "Key": "b"]` sends one `Key: b`), and fields keep the
/// order they were written in. Names and values given as strings are checked when the request
/// is consumed: CR, LF, NUL or an invalid name fail it with ``CurlewError/Kind/invalidHeader``
/// rather than reach the wire. `HTTPFields` are taken as they are, repeated names included
/// (they were checked when they were made).
public struct RequestHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    private enum Entry: Sendable, Hashable {
        case checked(HTTPField)
        case unchecked(name: String, value: String)

        var name: String {
            switch self {
            case .checked(let field): return field.name.canonicalName
            case .unchecked(let name, _): return name
            }
        }
    }

    /// The fields given as strings or changed since; empty while ``givenFields`` holds them.
    private var entries: [Entry] = []
    /// The `HTTPFields` given whole, kept as they are until the headers change, so that a
    /// request made from fields copies none.
    private var givenFields: HTTPFields?

    /// No fields.
    public init() {}

    /// Fields from a dictionary literal, in the order written; a later name replaces an earlier
    /// one that differs only in case.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    /// Fields from a dictionary, in name order (a dictionary has no order of its own, and the
    /// request should not depend on its hashing); of names that differ only in case, the
    /// last in that order wins.
    public init(_ dictionary: [String: String]) {
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) { self[name] = value }
    }

    /// The given `HTTPFields`, as they are.
    public init(_ fields: HTTPFields) {
        givenFields = fields
    }

    /// Every field, in order.
    private var allEntries: [Entry] { givenFields.map { $0.map(Entry.checked) } ?? entries }

    /// The value of the field named `name` (any case): the last given, as the request will
    /// carry it, or nil. Setting a value replaces every field of that name; setting nil removes
    /// them.
    public subscript(name: String) -> String? {
        get {
            for entry in allEntries.reversed() where entry.name.caseInsensitiveEquals(name) {
                switch entry {
                case .checked(let field): return field.value
                case .unchecked(_, let value): return value
                }
            }
            return nil
        }
        set {
            if givenFields != nil {
                entries = allEntries
                givenFields = nil
            }
            if let index = entries.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) {
                entries.removeAll { $0.name.caseInsensitiveEquals(name) }
                if let newValue { entries.insert(.unchecked(name: name, value: newValue), at: index) }
            } else if let newValue {
                entries.append(.unchecked(name: name, value: newValue))
            }
        }
    }

    /// Whether there are no fields.
    public var isEmpty: Bool { givenFields?.isEmpty ?? entries.isEmpty }

    public static func == (lhs: RequestHeaders, rhs: RequestHeaders) -> Bool {
        lhs.allEntries == rhs.allEntries
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(allEntries)
    }

    /// The fields as `name: value` lines, with the values of credential headers (and of names
    /// like `X-Api-Key`) shown as `***`.
    public var description: String {
        allEntries.map { entry -> String in
            let value: String
            switch entry {
            case .checked(let field): value = field.value
            case .unchecked(_, let text): value = text
            }
            let secret = HTTPField.Name(entry.name).map(Redaction.isSecretHeader) ?? false
            return "\(entry.name): \(secret ? Redaction.placeholder : value)"
        }
        .joined(separator: "\n")
    }

    /// The checked fields; `url` names the request in the error, and is made only then.
    func fields(for url: @autoclosure () -> URL?) throws(CurlewError) -> HTTPFields {
        if let givenFields { return givenFields }
        if entries.isEmpty { return HTTPFields() }
        var fields = HTTPFields()
        fields.reserveCapacity(entries.count)
        for entry in entries {
            switch entry {
            case .checked(let field):
                fields.append(field)
            case .unchecked(let name, let value):
                do {
                    fields.append(try HTTPField.validated(name: name, value: value, url: nil))
                } catch {
                    throw error.adding(url: url())
                }
            }
        }
        return fields
    }
}

extension String {
    /// Whether the two are equal ignoring ASCII case, as header names compare.
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
