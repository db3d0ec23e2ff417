import Foundation

/// Interprets the lines of an event stream under the WHATWG HTML rules ("Interpreting an
/// event stream"): fields accumulate into buffers and a blank line dispatches the event.
struct ServerSentEventParser {
    /// The largest event accepted (data plus event type), in bytes.
    let maximumEventLength: Int

    private var dataBuffer = ""
    private var dataBufferLength = 0
    private var eventType = ""
    private var lastEventID: String?
    private var retry: Duration?

    init(maximumEventLength: Int) {
        self.maximumEventLength = maximumEventLength
    }

    /// Processes one line (without its terminator); returns an event when the line is blank
    /// and an event is ready.
    ///
    /// - Throws: ``CurlewError/Kind/bodyTooLarge`` when the event being built grows past
    ///   ``maximumEventLength``.
    mutating func process(line: Data) throws(CurlewError) -> ServerSentEvent? {
        guard let first = line.first else { return dispatch() }
        if first == UInt8(ascii: ":") { return nil }  // a comment

        let field: Data
        var value: Data
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[line.startIndex..<colon]
            value = line[line.index(after: colon)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = line
            value = Data()
        }

        switch String(decoding: field, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
            try checkLength()
        case "data":
            dataBuffer += String(decoding: value, as: UTF8.self)
            dataBuffer += "\n"
            dataBufferLength += value.count + 1
            try checkLength()
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }),
                let milliseconds = Int64(String(decoding: value, as: UTF8.self))
            {
                retry = .milliseconds(milliseconds)
            }
        default:
            break  // unknown fields are ignored
        }
        return nil
    }

    /// The "dispatch the event" step: nothing when the data buffer is empty.
    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            dataBuffer = ""
            dataBufferLength = 0
            eventType = ""
        }
        guard !dataBuffer.isEmpty else { return nil }
        if dataBuffer.hasSuffix("\n") { dataBuffer.removeLast() }
        return ServerSentEvent(
            event: eventType.isEmpty ? "message" : eventType, data: dataBuffer, id: lastEventID, retry: retry)
    }

    private func checkLength() throws(CurlewError) {
        guard dataBufferLength + eventType.utf8.count <= maximumEventLength else {
            throw CurlewError(
                .bodyTooLarge,
                "an event of the stream is larger than the maximum of \(maximumEventLength) bytes; "
                    + "raise the maximum event length if such events are expected")
        }
    }
}
