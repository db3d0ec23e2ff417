/// One event of a Server-Sent Events stream (`text/event-stream`), as dispatched under the
/// WHATWG HTML rules.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the last `event:` field of the event, or `"message"` when it had none.
    public var event: String
    /// The `data:` fields of the event joined with LF (`"a\nb"` for two `data:` lines).
    public var data: String
    /// The last event ID of the stream so far: set by an `id:` field (an `id:` with an empty
    /// value resets it to `""`), kept across events; nil until the first `id:`. Send it as
    /// `Last-Event-ID` when reconnecting.
    public var id: String?
    /// The reconnection time most recently set by a `retry:` field in the stream, if any.
    public var retry: Duration?

    /// Creates an event.
    public init(event: String = "message", data: String, id: String? = nil, retry: Duration? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}
