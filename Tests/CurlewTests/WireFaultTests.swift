import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Servers that misbehave at the byte level (a ``WireServer`` writes exactly what each test
/// scripts), for the entries of docs/FAULTS.md that the httpbin-like server cannot produce.
@Suite("Byte-level server faults")
struct WireFaultTests {
    /// Runs `request` against a fresh wire server whose first connection is answered by
    /// `script` once the request head arrived; returns the request's result.
    private func exchange<T: Sendable>(
        _ request: @escaping @Sendable (Session, WireServer) async throws(CurlewError) -> T,
        script: @escaping @Sendable (WireConnection) async throws -> Void
    ) async throws -> Result<T, CurlewError> {
        let wire = try await WireServer.start()
        let session = Session()
        async let result: Result<T, CurlewError> = {
            do throws(CurlewError) { return .success(try await request(session, wire)) } catch { return .failure(error) }
        }()
        let connection = try await wire.nextConnection()
        await connection.readHead()
        try await script(connection)
        let outcome = await result
        await connection.close()
        await session.shutdown()
        await wire.shutdown()
        return outcome
    }

    private func expectFailure<T>(_ result: Result<T, CurlewError>, _ kind: CurlewError.Kind, mentioning text: String) {
        switch result {
        case .success: Issue.record("expected \(kind), got a response")
        case .failure(let error):
            #expect(error.kind == kind, "\(error)")
            #expect(error.description.contains(text), "\(error.description)")
        }
    }

    @Test func unrequestedSwitchingProtocolsIsAnError() async throws {
        let result = try await exchange({ session, wire throws(CurlewError) in
            try await session.request(wire.url("/plain")).data()
        }) { connection in
            try await connection.send("HTTP/1.1 101 Switching Protocols\r\nUpgrade: tea\r\nConnection: Upgrade\r\n\r\nupgraded bytes")
            await connection.close()
        }
        expectFailure(result, .malformedResponse, mentioning: "switched protocols (101)")
    }

    @Test func requestedUpgradeGetsTheSwitchingProtocolsResponse() async throws {
        let result = try await exchange({ session, wire throws(CurlewError) in
            try await session.request(wire.url("/upgrade"), headers: ["Upgrade": "tea", "Connection": "Upgrade"]).response
        }) { connection in
            try await connection.send("HTTP/1.1 101 Switching Protocols\r\nUpgrade: tea\r\nConnection: Upgrade\r\n\r\nupgraded bytes")
            await connection.close()
        }
        let response = try result.get()
        #expect(response.status.code == 101)
        #expect(String(decoding: response.value, as: UTF8.self) == "upgraded bytes")
    }

    @Test func endlessInterimResponsesHitTheHeaderLimit() async throws {
        let result = try await exchange({ session, wire throws(CurlewError) in
            try await session.request(wire.url("/endless-1xx")).data()
        }) { connection in
            // 300 KiB of `100 Continue` heads: past the 256 KiB limit on all head bytes.
            let interim = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
            // The client gives up once past its limit, so sending may fail then: not an error.
            for _ in 0..<(300 << 10) / interim.count / 64 where !connection.isClosedByPeer {
                try? await connection.send(Array([[UInt8]](repeating: interim, count: 64).joined()))
            }
            await connection.close()
        }
        expectFailure(result, .malformedResponse, mentioning: "headers exceed")
    }

    @Test func headCutShortIsAnError() async throws {
        let result = try await exchange({ session, wire throws(CurlewError) in
            try await session.request(wire.url("/cut-head")).data()
        }) { connection in
            try await connection.send("HTTP/1.1 200 OK\r\nContent-Type: text/pl")
            await connection.close()
        }
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect([.malformedResponse, .connectionClosedMidBody].contains(error.kind), "\(error)")
    }

    @Test func bodyLongerThanContentLengthIsCutAtTheLength() async throws {
        // The excess is not this response's body: libcurl stops at the length and does not
        // reuse the connection; the body is exactly what was declared.
        let result = try await exchange({ session, wire throws(CurlewError) in
            try await session.request(wire.url("/long-body")).data()
        }) { connection in
            try await connection.send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA-BYTES")
        }
        #expect(try result.get() == Data("hello".utf8))
    }

    @Test func conflictingContentLengthsAreRejected() async throws {
        let result = try await exchange({ session, wire throws(CurlewError) in
            try await session.request(wire.url("/two-lengths")).data()
        }) { connection in
            try await connection.send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello12")
            await connection.close()
        }
        expectFailure(result, .malformedResponse, mentioning: "Content-Length")
    }

    @Test func nonNumericContentLengthIsRejected() async throws {
        let result = try await exchange({ session, wire throws(CurlewError) in
            try await session.request(wire.url("/bad-length")).data()
        }) { connection in
            try await connection.send("HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\nhello")
            await connection.close()
        }
        expectFailure(result, .malformedResponse, mentioning: "Content-Length")
    }

    @Test func repeatedEqualContentLengthsAreAccepted() async throws {
        let result = try await exchange({ session, wire throws(CurlewError) in
            try await session.request(wire.url("/same-lengths")).data()
        }) { connection in
            try await connection.send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello")
        }
        #expect(try result.get() == Data("hello".utf8))
    }

    @Test func statusCodeOutOfRangeIsMalformed() async throws {
        let result = try await exchange({ session, wire throws(CurlewError) in
            try await session.request(wire.url("/status-999")).data()
        }) { connection in
            try await connection.send("HTTP/1.1 999 Nope\r\nContent-Length: 0\r\n\r\n")
            await connection.close()
        }
        expectFailure(result, .malformedResponse, mentioning: "status line")
    }
}

/// The one measurement of this file: it runs in the serial memory phase.
@Suite("Declared lengths and memory", .serialized)
struct DeclaredLengthMemoryTests {
    /// 50 responses that each claim 127 MiB and send 10 bytes must not reserve 127 MiB each
    /// (they once reached 6.8 GiB of address space before a byte of their bodies arrived).
    @Test func claimedContentLengthReservesBoundedMemory() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        let before = try ResidentMemory.virtualBytes()
        let url = server.url("/fault/stall-after-head?length=\(127 << 20)&send=10")
        let requests = (0..<50).map { _ in session.request(url) }
        let started = CallCounter()
        let tasks = requests.map { request in
            Task {
                for try await event in request.events {
                    if case .downloadProgress = event { _ = started.next() }
                }
            }
        }
        try await waitUntil({ started.count() >= 50 }, timeout: .seconds(20))
        let grown = try ResidentMemory.virtualBytes() - before
        for task in tasks { task.cancel() }
        await session.shutdown()
        #expect(grown < 1 << 30, "address space grew by \(grown >> 20) MiB")
    }
}
