/// The continuations waiting for one event, in the order they came: the first is stored
/// inline, so the usual single waiter costs no array (an allocation and its free per request).
struct WaiterList<Waiter> {
    private var first: Waiter?
    /// Nil until a second waiter comes: an empty list then costs nothing to destroy either.
    private var others: [Waiter]?

    var isEmpty: Bool { first == nil }

    mutating func append(_ waiter: Waiter) {
        if first == nil {
            first = waiter
        } else {
            // Appends to the array, or makes it when there is none yet.
            if others?.append(waiter) == nil { others = [waiter] }
        }
    }

    /// Calls `body` with every waiter, first come first.
    func forEach(_ body: (Waiter) -> Void) {
        guard let first else { return }
        body(first)
        others?.forEach(body)
    }

    /// The waiters, leaving the list empty.
    mutating func takeAll() -> WaiterList {
        defer { self = WaiterList() }
        return self
    }
}
