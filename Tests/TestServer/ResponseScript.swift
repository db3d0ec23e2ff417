import NIOCore
import NIOHTTP1

/// One thing a response does on the wire. The connection handler plays the steps in order,
/// writing only while the channel is writable, so even endless bodies use bounded memory.
enum ResponseStep {
    /// Write the status line and headers (already serialized). For a `HEAD` request the
    /// response ends right after this step.
    case head(ByteBuffer)
    /// Write part of the body (already framed, for chunked responses).
    case body(ByteBuffer)
    /// Flush what was written and wait this long before the next step.
    case wait(TimeAmount)
    /// The response is complete; the connection may carry the next request.
    case end
    /// Flush what was written, then close the connection.
    case close
    /// Flush what was written, then abort the connection with a TCP reset (SO_LINGER 0).
    case reset
    /// Flush what was written and send nothing more; the connection stays open until the
    /// client goes away or the server shuts down.
    case stall
}

/// The steps of one response: a fixed list, optionally followed by steps produced on demand.
///
/// Lives on one event loop only (owned by a connection handler), so it needs no locking.
final class ResponseScript {
    private var steps: [ResponseStep]
    private var index = 0
    private var produce: (() -> [ResponseStep]?)?

    /// Creates a script that plays `steps`, then calls `produce` for more steps until it returns
    /// `nil` (or an empty array), and then ends the response.
    init(_ steps: [ResponseStep], then produce: (() -> [ResponseStep]?)? = nil) {
        self.steps = steps
        self.produce = produce
    }

    /// Inserts a wait before everything else. Only meaningful before the script has started.
    func delayStart(by delay: TimeAmount) {
        steps.insert(.wait(delay), at: index)
    }

    /// The next step to play.
    func next() -> ResponseStep {
        while true {
            if index < steps.count {
                let step = steps[index]
                index += 1
                if index == steps.count {
                    steps.removeAll(keepingCapacity: true)
                    index = 0
                }
                return step
            }
            guard let produce else { return .end }
            guard let more = produce(), !more.isEmpty else {
                self.produce = nil
                return .end
            }
            steps = more
            index = 0
        }
    }
}

/// A response's status line and header fields, serialized by hand so that any bytes can be sent.
struct ResponseHead {
    /// The status code.
    var status: Int
    /// The header fields, in order; a name may repeat.
    var headers: [(String, String)]
    /// The reason phrase; when `nil` the standard phrase for `status` is used.
    var reason: String?

    init(status: Int, headers: [(String, String)] = [], reason: String? = nil) {
        self.status = status
        self.headers = headers
        self.reason = reason
    }

    /// Whether a field with this name (case-insensitive) is present.
    func contains(_ name: String) -> Bool {
        headers.contains { $0.0.lowercased() == name.lowercased() }
    }

    /// Replaces every field called `name` with a single one.
    mutating func set(_ name: String, _ value: String) {
        remove(name)
        headers.append((name, value))
    }

    /// Removes every field called `name`.
    mutating func remove(_ name: String) {
        headers.removeAll { $0.0.lowercased() == name.lowercased() }
    }

    /// The HTTP/1.1 status line plus headers plus the blank line, as bytes.
    func serialized(allocator: ByteBufferAllocator) -> ByteBuffer {
        let phrase = reason ?? HTTPResponseStatus(statusCode: status).reasonPhrase
        var text = "HTTP/1.1 \(status) \(phrase)\r\n"
        for (name, value) in headers {
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        return allocator.buffer(string: text)
    }
}
