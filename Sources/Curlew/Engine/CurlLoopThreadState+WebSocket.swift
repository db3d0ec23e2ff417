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
        // The wait's arrays and the read buffer stay (64 KiB, for the session's life): a wait
        // may be serving its channels, and a read handing the buffer's bytes on, right now.
    }

    /// Runs the WebSockets' timers, then waits in `curl_multi_wait` for the session's own
    /// transfers, the wake descriptor (when given) and each WebSocket's descriptors (see
    /// ``WebSocketChannel/appendWaitDescriptors(to:)``), and serves those that are ready.
    /// Returns whether the wake descriptor is readable.
    func waitWithWebSockets(wakeDescriptor: Int32?, timeout: Int32) -> Bool {
        let now = clock.now
        // A copy: a timer may end a channel, which leaves the list.
        polledChannels.removeAll(keepingCapacity: true)
        polledChannels.append(contentsOf: webSockets)
        for channel in polledChannels { channel.tick(on: self, now: now) }
        polledChannels.removeAll(keepingCapacity: true)
        polledCounts.removeAll(keepingCapacity: true)
        waitDescriptors.removeAll(keepingCapacity: true)
        if let wakeDescriptor {
            waitDescriptors.append(curl_waitfd(fd: wakeDescriptor, events: Int16(CURL_WAIT_POLLIN), revents: 0))
        }
        let first = waitDescriptors.count
        var timeout = timeout
        for channel in webSockets {
            let before = waitDescriptors.count
            channel.appendWaitDescriptors(to: &waitDescriptors)
            if waitDescriptors.count > before {
                polledChannels.append(channel)
                polledCounts.append(waitDescriptors.count - before)
            }
            // libcurl's own timers while a WebSocket connects (happy eyeballs, TLS, the proxy).
            if let milliseconds = channel.connectTimerMilliseconds { timeout = min(timeout, Int32(clamping: milliseconds)) }
        }
        let count = UInt32(waitDescriptors.count)
        waitDescriptors.withUnsafeMutableBufferPointer { descriptors in
            _ = curl_multi_wait(multi, descriptors.baseAddress, count, timeout, nil)
        }
        clock.tick()
        let after = clock.now
        var position = first
        for (offset, channel) in polledChannels.enumerated() {
            let end = position + polledCounts[offset]
            channel.ready(waitDescriptors[position..<end], on: self, now: after)
            position = end
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
