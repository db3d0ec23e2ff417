/// The monitor of one request: its identifier and the session's monitors.
struct RequestMonitor: Sendable {
    let id: RequestID
    let monitor: CompositeEventMonitor

    /// Nil when the session has no monitors, so that unmonitored requests pay nothing.
    init?(_ monitors: [any EventMonitor]) {
        guard !monitors.isEmpty else { return nil }
        id = RequestID.next()
        monitor = CompositeEventMonitor(monitors)
    }
}
