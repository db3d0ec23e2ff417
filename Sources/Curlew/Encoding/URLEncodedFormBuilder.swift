/// A mutable node of a ``URLEncodedFormNode`` tree under construction; the encoder's
/// containers share nodes by reference.
final class URLEncodedFormBuilder {
    private enum Kind { case unset, scalar, array, object }
    private var kind = Kind.unset
    private var scalar = URLEncodedFormNode.null
    private var elements: [URLEncodedFormBuilder] = []
    private var members: [String: URLEncodedFormBuilder] = [:]

    /// Stores a scalar (or null), replacing whatever was there.
    func set(_ value: URLEncodedFormNode) {
        kind = .scalar
        scalar = value
    }

    /// Turns the node into an object, keeping members written by an earlier container.
    func becomeObject() {
        if kind != .object { kind = .object; members = [:] }
    }

    /// Turns the node into an array, keeping elements written by an earlier container.
    func becomeArray() {
        if kind != .array { kind = .array; elements = [] }
    }

    /// The member node for `key`, created when missing.
    func member(_ key: String) -> URLEncodedFormBuilder {
        becomeObject()
        if let existing = members[key] { return existing }
        let child = URLEncodedFormBuilder()
        members[key] = child
        return child
    }

    /// A new element node at the end.
    func appendElement() -> URLEncodedFormBuilder {
        becomeArray()
        let child = URLEncodedFormBuilder()
        elements.append(child)
        return child
    }

    var elementCount: Int { elements.count }

    /// The finished tree; nil when nothing was written. Members that wrote nothing are left out.
    func freeze() -> URLEncodedFormNode? {
        switch kind {
        case .unset: return nil
        case .scalar: return scalar
        case .array: return .array(elements.map { $0.freeze() ?? .null })
        case .object: return .object(members.compactMapValues { $0.freeze() })
        }
    }
}
