import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The server side of openapi.yaml, through the generated `APIProtocol`.
struct TestAPI: APIProtocol {
    let probe: ServerProbe

    func createGreeting(_ input: Operations.CreateGreeting.Input) async throws -> Operations.CreateGreeting.Output {
        guard case .json(let request) = input.body else { return .undocumented(statusCode: 415, .init()) }
        let headers = RequestHeaders.current
        return .created(.init(body: .json(.init(
            message: "Hello, \(request.name)!",
            tag: headers[HTTPField.Name("X-Test-Tag")!],
            authorization: headers[.authorization]))))
    }

    func getItem(_ input: Operations.GetItem.Input) async throws -> Operations.GetItem.Output {
        guard input.path.id == "1" else {
            return .notFound(.init(body: .json(.init(message: "no item \(input.path.id)"))))
        }
        return .ok(.init(body: .json(.init(id: "1", name: "One", detail: input.query.detail))))
    }

    func getMe(_ input: Operations.GetMe.Input) async throws -> Operations.GetMe.Output {
        let authorization = RequestHeaders.current[.authorization]
        guard authorization == "Bearer fresh" else {
            return .unauthorized(.init(body: .json(.init(message: "token \(authorization ?? "missing") rejected"))))
        }
        return .ok(.init(body: .json(.init(message: "it is you", authorization: authorization))))
    }

    func upload(_ input: Operations.Upload.Input) async throws -> Operations.Upload.Output {
        guard case .binary(let body) = input.body else { return .undocumented(statusCode: 415, .init()) }
        let chunked = RequestHeaders.current[.contentLength] == nil
        var count: Int64 = 0
        var checksum: Int64 = 0
        for try await chunk in body {
            for byte in chunk { checksum &+= Int64(byte) }
            count += Int64(chunk.count)
            probe.record(.uploadProgress(count))
        }
        return .ok(.init(body: .json(.init(byteCount: count, checksum: checksum, chunked: chunked))))
    }

    func download(_ input: Operations.Download.Input) async throws -> Operations.Download.Output {
        let bytes = PatternBytes(
            size: max(0, input.query.size), delay: .milliseconds(input.query.delayMilliseconds ?? 0), probe: probe)
        return .ok(.init(body: .binary(HTTPBody(bytes, length: .known(bytes.size), iterationBehavior: .single))))
    }
}

/// `size` bytes where byte `i` is `i % 251`, in 64 KiB chunks made on demand (never held whole),
/// after `delay` each. Dropped before its end, it tells the probe how much it had sent.
struct PatternBytes: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    static let chunkSize = 64 * 1024
    /// One chunk's worth of the pattern from every phase: a chunk is a slice of it.
    static let pattern: [UInt8] = (0..<(chunkSize + 251)).map { UInt8($0 % 251) }

    /// The byte at `offset` of any pattern body.
    static func byte(at offset: Int64) -> UInt8 { UInt8(offset % 251) }

    let size: Int64
    let delay: Duration
    let probe: ServerProbe

    func makeAsyncIterator() -> Iterator { Iterator(tracker: Tracker(size: size, probe: probe), delay: delay) }

    struct Iterator: AsyncIteratorProtocol {
        let tracker: Tracker
        let delay: Duration

        mutating func next() async throws -> ArraySlice<UInt8>? {
            let offset = tracker.sent
            guard offset < tracker.size else { return nil }
            if delay > .zero { try await Task.sleep(for: delay) }
            let count = Int(Swift.min(Int64(PatternBytes.chunkSize), tracker.size - offset))
            let phase = Int(offset % 251)
            tracker.sent += Int64(count)
            return PatternBytes.pattern[phase..<(phase + count)]
        }
    }

    /// Owned by the one iterator: reports an unfinished body when the server drops it.
    final class Tracker {
        let size: Int64
        let probe: ServerProbe
        var sent: Int64 = 0

        init(size: Int64, probe: ServerProbe) {
            self.size = size
            self.probe = probe
        }

        deinit {
            if sent < size { probe.record(.downloadAbandoned(sent: sent)) }
        }
    }
}
