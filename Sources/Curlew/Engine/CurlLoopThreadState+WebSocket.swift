import CCurlShims
import Foundation

/// The loop's side of WebSockets: their list, their sockets in the loop's one wait, their
/// timers. Nothing here runs while the session has no WebSocket.
extension CurlLoopThreadState {
    /// A WebSocket's command: the first one opens it.
    func serviceWebSocket(_ channel: WebSocketChannel) {
        let loop = channel.loopState
        if loop.stage == .done { return }
        if loop.index < 0, loop.stage == .waiting {
            loop.index = webSockets.count
            webSockets.append(channel)
            if webSocketScratch.isEmpty { webSocketScratch = [UInt8](repeating: 0, count: 64 << 10) }
        }
        channel.service(on: self, now: clock.now)
    }

    /// Takes `channel` out of the list (it ended).
    func removeWebSocket(_ channel: WebSocketChannel) {
        let index = channel.loopState.index
        guard index >= 0, index < webSockets.count, webSockets[index] === channel else { return }
        let last = webSockets.removeLast()
        if last !== channel {
            webSockets[index] = last
            last.loopState.index = index
        }
        channel.loopState.index = -1
        if webSockets.isEmpty {
            webSocketScratch = []
            waitDescriptors = []
            polledChannels = []
        }
    }

    /// Runs the WebSockets' timers, then waits in `curl_multi_wait` for libcurl's sockets, the
    /// wake descriptor (when given) and each WebSocket's socket — for input while its consumer
    /// has room, for output while it has bytes to write — and serves the sockets that are
    /// ready. Returns whether the wake descriptor is readable.
    func waitWithWebSockets(wakeDescriptor: Int32?, timeout: Int32) -> Bool {
        let now = clock.now
        // A copy: a timer may end a channel, which leaves the list.
        polledChannels.removeAll(keepingCapacity: true)
        polledChannels.append(contentsOf: webSockets)
        for channel in polledChannels { channel.tick(on: self, now: now) }
        polledChannels.removeAll(keepingCapacity: true)
        waitDescriptors.removeAll(keepingCapacity: true)
        if let wakeDescriptor {
            waitDescriptors.append(curl_waitfd(fd: wakeDescriptor, events: Int16(CURL_WAIT_POLLIN), revents: 0))
        }
        let first = waitDescriptors.count
        for channel in webSockets {
            let events = channel.pollEvents
            guard events != 0 else { continue }
            waitDescriptors.append(curl_waitfd(fd: channel.loopState.socket, events: events, revents: 0))
            polledChannels.append(channel)
        }
        let count = UInt32(waitDescriptors.count)
        waitDescriptors.withUnsafeMutableBufferPointer { descriptors in
            _ = curl_multi_wait(multi, descriptors.baseAddress, count, timeout, nil)
        }
        clock.tick()
        let after = clock.now
        for (offset, channel) in polledChannels.enumerated() {
            let revents = waitDescriptors[first + offset].revents
            if revents != 0 { channel.ready(revents, on: self, now: after) }
        }
        polledChannels.removeAll(keepingCapacity: true)
        guard wakeDescriptor != nil else { return false }
        return waitDescriptors[0].revents & Int16(CURL_WAIT_POLLIN) != 0
    }

    /// Ends every WebSocket when the session shuts down, and fails those never opened.
    func shutDownWebSockets(leftovers: [WebSocketChannel]) {
        let channels = webSockets + leftovers.filter { $0.loopState.index < 0 }
        for channel in channels {
            let error = CurlewError(.sessionShutdown, "the session was shut down", url: channel.url)
            channel.finishOpening(.failure(error))
            channel.endMessages(.failure(error))
            if channel.loopState.stage == .waiting {
                channel.loopState.stage = .done
                channel.markTornDown(sendFailure: error)
            } else {
                channel.tearDown(on: self, error: error)
            }
        }
        webSockets.removeAll()
    }
}
