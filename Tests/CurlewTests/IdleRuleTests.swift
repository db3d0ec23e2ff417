import Curlew
import Foundation
import Testing
import TestServer

@Suite("One idle rule for head and body, and a minimum speed")
struct IdleRuleTests {
    /// An idle limit of 2 s: five times the pace of the slow tests, for a loaded machine.
    private func options(idle: Duration = .seconds(2), minimumSpeed: MinimumSpeed? = nil) -> RequestOptions {
        var options = RequestOptions()
        options.timeouts.idle = idle
        options.timeouts.minimumSpeed = minimumSpeed
        return options
    }

    private func failure(_ request: DataRequest) async -> CurlewError? {
        do {
            _ = try await request.data()
            return nil
        } catch {
            return error
        }
    }

    @Test func aHeadAndABodyArrivingInStepsShorterThanTheLimitAreNotIdle() async throws {
        let server = try await Fixtures.server()
        // Seven header lines 400 ms apart: 2.8 s for the head, longer than the 2 s limit, but
        // never 2 s without a line (counting only the status line, this timed out).
        let head = try await Fixtures.session.request(server.url("/fault/slow-head?interval=400&lines=7"), options: options())
            .response
        #expect(head.head.headerFields[.init("X-Drip-6")!] == "6")
        // Seven body bytes 400 ms apart, the same pace.
        let body = try await Fixtures.session.request(server.url("/fault/slow-drip?interval=400&bytes=7"), options: options())
            .data()
        #expect(body.count == 7)
    }

    @Test func aHeadAndABodyPausingLongerThanTheLimitAreIdle() async throws {
        let server = try await Fixtures.server()
        let clock = ContinuousClock()
        let start = clock.now
        let head = await failure(
            Fixtures.session.request(server.url("/fault/slow-head?interval=2500&lines=1"), options: options(idle: .seconds(1))))
        #expect(head?.kind == .idleTimeout)
        #expect(head?.status == nil, "the head never completed")
        let body = await failure(
            Fixtures.session.request(server.url("/fault/slow-drip?interval=2500&bytes=2"), options: options(idle: .seconds(1))))
        #expect(body?.kind == .idleTimeout)
        #expect(body?.status == .ok)
        #expect(clock.now - start < .seconds(5), "each fails after about 1 s, before its 2.5 s pause ends")
    }

    @Test func theMinimumSpeedStopsADripThatIsNeverIdle() async throws {
        let server = try await Fixtures.server()
        // 5 bytes a second for 8 s: never idle for 2 s, but below 100 bytes a second.
        let drip = server.url("/fault/slow-drip?interval=200&bytes=40")
        let clock = ContinuousClock()
        let start = clock.now
        let error = await failure(
            Fixtures.session.request(drip, options: options(minimumSpeed: MinimumSpeed(bytesPerSecond: 100, over: .seconds(1)))))
        #expect(error?.kind == .tooSlow, "\(String(describing: error))")
        #expect(error?.message.contains("less than 100 bytes per second over the last 1 s") == true)
        #expect(error?.curlCode == 28)
        #expect(clock.now - start < .seconds(7), "stopped before the drip ends")
    }

    @Test func aTransferAboveTheMinimumSpeedCompletes() async throws {
        let server = try await Fixtures.server()
        // 10 bytes a second for 3 s against a floor of 2 over 1 s: the floor does not fire.
        let data = try await Fixtures.session.request(
            server.url("/fault/slow-drip?interval=100&bytes=30"),
            options: options(minimumSpeed: MinimumSpeed(bytesPerSecond: 2, over: .seconds(1)))
        ).data()
        #expect(data.count == 30)
    }

    @Test func aSessionMinimumSpeedAppliesAndARequestMayOverrideIt() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.timeouts.minimumSpeed = MinimumSpeed(bytesPerSecond: 1000, over: .milliseconds(500))
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        let drip = server.url("/fault/slow-drip?interval=100&bytes=15")
        let slow = await failure(session.request(drip))
        #expect(slow?.kind == .tooSlow, "a 500 ms window is rounded up to 1 s: \(String(describing: slow))")
        let relaxed = try await session.request(drip, options: options(minimumSpeed: MinimumSpeed(bytesPerSecond: 1, over: .seconds(2))))
            .data()
        #expect(relaxed.count == 15)
    }

    @Test func aPooledHandleDoesNotKeepAnEarlierRequestsFloor() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        defer { Task { await session.shutdown() } }
        let floor = options(minimumSpeed: MinimumSpeed(bytesPerSecond: 1000, over: .seconds(1)))
        #expect(try await session.request(server.url("/bytes/10"), options: floor).data().count == 10)
        // The same (only) handle next, without a floor: 5 bytes a second for 1.2 s is fine.
        let slow = try await session.request(server.url("/fault/slow-drip?interval=200&bytes=6"), options: options()).data()
        #expect(slow.count == 6)
    }

    @Test(arguments: [(0, Duration.seconds(1)), (-1, .seconds(1)), (100, .zero), (100, .seconds(-1))])
    func aNonPositiveMinimumSpeedIsInvalid(_ bytesPerSecond: Int, _ window: Duration) async throws {
        let server = try await Fixtures.server()
        let error = await failure(
            Fixtures.session.request(
                server.url("/get"), options: options(minimumSpeed: MinimumSpeed(bytesPerSecond: bytesPerSecond, over: window))))
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("minimum speed") == true)
    }
}
