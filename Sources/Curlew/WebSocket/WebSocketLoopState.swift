import CCurlShims
import Foundation

/// The curl thread's part of a ``WebSocketChannel``: the handle, the socket, the codec and the
/// buffers. Touched by that thread only (see the channel's safety note).
final class WebSocketLoopState {
    enum Stage {
        /// Not yet taken by the loop.
        case waiting
        /// In the multi handle: libcurl resolves, connects, tunnels and does TLS.
        case connecting
        /// Writing the request and reading the response head.
        case handshaking
        case open
        /// A close frame was sent or received (or the connection failed): waiting for the
        /// server to end the connection, until the close deadline.
        case closing
        case done
    }

    @exclusivity(unchecked) var stage = Stage.waiting
    @exclusivity(unchecked) var easy: EasyHandle?
    /// The connection's own multi handle, from connecting to the end. Its own, not the
    /// session's: libcurl keeps a connect-only connection in its multi handle's connection
    /// cache as an idle one, and another transfer's pruning there (idle for longer than
    /// `CURLOPT_MAXAGE_CONN`, or readable while "idle") or the cache's size limit would close it
    /// under the WebSocket. Alone in a multi handle of its own, nothing else ever looks at it.
    @exclusivity(unchecked) var multi: UnsafeMutableRawPointer?
    /// The sockets libcurl waits on while it connects (`CURLMOPT_SOCKETFUNCTION`), with the
    /// `curl_waitfd` events for each.
    @exclusivity(unchecked) var connectSockets: [(socket: Int32, events: Int16)] = []
    @exclusivity(unchecked) var socket: Int32 = -1
    /// The channel's index in the loop's list.
    @exclusivity(unchecked) var index = -1
    /// The response head while it arrives.
    @exclusivity(unchecked) var head: [UInt8] = []
    @exclusivity(unchecked) var decoder: WebSocketFrameDecoder?
    @exclusivity(unchecked) var assembler: WebSocketMessageAssembler?
    @exclusivity(unchecked) var codec: WebSocketDeflateCodec?
    /// Bytes to write, from ``outgoingStart``.
    @exclusivity(unchecked) var outgoing: [UInt8] = []
    @exclusivity(unchecked) var outgoingStart = 0
    /// Bytes ever queued and ever written: a send's continuation resumes once ``writtenTotal``
    /// passes the total its frame ended at.
    @exclusivity(unchecked) var queuedTotal = 0
    @exclusivity(unchecked) var writtenTotal = 0
    @exclusivity(unchecked) var writeWaiters: [(end: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    @exclusivity(unchecked) var closeSent = false
    @exclusivity(unchecked) var closeReceived = false
    /// Incoming frames are dropped: the connection failed and only waits for the server's end.
    @exclusivity(unchecked) var discarding = false
    /// Whether reads stopped because the consumer's buffer is full.
    @exclusivity(unchecked) var readingStopped = false
    @exclusivity(unchecked) var deadline: ContinuousClock.Instant?
    @exclusivity(unchecked) var lastReceive = ContinuousClock.now
    @exclusivity(unchecked) var lastSendProgress = ContinuousClock.now
    @exclusivity(unchecked) var lastPing = ContinuousClock.now
    /// Masking keys (RFC 6455 §5.3) and nothing else: the system's CSPRNG.
    @exclusivity(unchecked) var random = SystemRandomNumberGenerator()

    var hasPendingOutput: Bool { outgoingStart < outgoing.count }

    /// What libcurl's socket callback said about `socket` (`CURL_POLL_*`).
    func watch(_ socket: Int32, what: Int32) {
        connectSockets.removeAll { $0.socket == socket }
        var events: Int16 = 0
        if what == CURL_POLL_IN || what == CURL_POLL_INOUT { events |= Int16(CURL_WAIT_POLLIN) }
        if what == CURL_POLL_OUT || what == CURL_POLL_INOUT { events |= Int16(CURL_WAIT_POLLOUT) }
        if events != 0 { connectSockets.append((socket, events)) }
    }

    /// The socket callback of ``multi``; its user data is this state, unretained (the state
    /// outlives its multi handle, which ``WebSocketChannel/tearDown(on:error:)`` cleans up).
    static let socketCallback: curlew_socket_callback = { _, socket, what, userdata, _ in
        guard let userdata else { return 0 }
        Unmanaged<WebSocketLoopState>.fromOpaque(userdata).takeUnretainedValue().watch(socket, what: what)
        return 0
    }
}
