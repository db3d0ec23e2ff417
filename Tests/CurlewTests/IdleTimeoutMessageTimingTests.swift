import Curlew
import Foundation
import Testing
import TestServer

/// An idle timeout says where the exchange stood when the server went quiet: what arrived and
/// what did not. libcurl hands a head over by whole lines, so a line that trickles in slower
/// than the limit is "no complete line", never "no bytes moved".
///
/// No wall-clock bound: each server below takes longer than its limit by construction (a
/// trickle of 17+ bytes 500 ms apart, a silence of minutes), so only the message is checked.
/// But the message depends on how much arrived before the limit, and in the parallel phase a
/// loaded test server sent its first lines more than a second late: "Timing" in the name puts
/// the suite in the serial phase, and the limit is 3 s.
@Suite("Idle timeouts say what arrived")
struct IdleTimeoutMessageTimingTests {
    private func idleFailure(_ request: DataRequest) async -> CurlewError? {
        do {
            _ = try await request.data()
            Issue.record("expected an idle timeout")
            return nil
        } catch {
            return error
        }
    }

    private func options(idle: Duration = .seconds(3)) -> RequestOptions {
        var options = RequestOptions()
        options.timeouts.idle = idle
        return options
    }

    @Test func aStatusLineTricklingSlowerThanTheLimitIsNamed() async throws {
        let server = try await Fixtures.server()
        // 17 bytes, one every 500 ms: bytes move all along, the line completes after 8.5 s.
        let error = await idleFailure(
            Fixtures.session.request(server.url("/fault/trickle-head?interval=500"), options: options()))
        #expect(error?.kind == .idleTimeout)
        #expect(error?.message.contains("no bytes moved") == false, "\(String(describing: error))")
        #expect(error?.message.contains("not even its status line was complete") == true, "\(String(describing: error))")
        #expect(error?.message.contains("whole lines") == true)
    }

    @Test func aHeaderLineTricklingAfterWholeLinesCountsThem() async throws {
        let server = try await Fixtures.server()
        let error = await idleFailure(
            Fixtures.session.request(server.url("/fault/trickle-head?interval=500&headers=2"), options: options()))
        #expect(error?.kind == .idleTimeout)
        #expect(
            error?.message.contains("the response's status line and 2 header lines arrived, then no complete header line for 3") == true,
            "\(String(describing: error))")
    }

    @Test func aBodyThatStopsSaysHowMuchOfItCame() async throws {
        let server = try await Fixtures.server()
        let error = await idleFailure(
            Fixtures.session.request(server.url("/fault/stall-after-head?length=10&send=3"), options: options()))
        #expect(error?.kind == .idleTimeout)
        #expect(error?.status == .ok)
        #expect(
            error?.message.contains("the response head arrived, then no body bytes for 3") == true, "\(String(describing: error))")
        #expect(error?.message.contains("after 3 of 10 bytes of the body") == true, "\(String(describing: error))")
    }

    @Test func anUploadTheServerStopsReadingSaysHowMuchWentOut() async throws {
        // The server reads the head only: once the socket buffers are full the body stops.
        let wire = try await WireServer.start()
        let session = Session()
        let length = 64 << 20
        async let failure = idleFailure(
            session.request(wire.url("/upload"), method: .put, body: .data(Data(count: length)), options: options()))
        let connection = try await wire.nextConnection()
        _ = await connection.readHead()
        let error = await failure
        #expect(error?.kind == .idleTimeout)
        #expect(error?.message.contains("the server took no more of the request body for 3") == true, "\(String(describing: error))")
        #expect(error?.message.contains("of its \(length) bytes, and sent no response") == true)
        await connection.close()
        await session.shutdown()
        await wire.shutdown()
    }
}
