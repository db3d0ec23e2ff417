import Curlew
import Foundation
import Testing
import TestServer

@Suite("One idle rule for head and body, and a minimum speed")
struct IdleRuleTests {
    private func options(idle: Duration = .seconds(1), minimumSpeed: MinimumSpeed? = nil) -> RequestOptions {
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
        // Five header lines 400 ms apart: 2 s for the head, never 1 s without a line.
        let head = try await Fixtures.session.request(server.url("/fault/slow-head?interval=400&lines=5"), options: options())
            .response
        #expect(head.head.headerFields[.init("X-Drip-4")!] == "4")
        // Five body bytes 400 ms apart, the same pace.
        let body = try await Fixtures.session.request(server.url("/fault/slow-drip?interval=400&bytes=5"), options: options())
            .data()
        #expect(body.count == 5)
    }

    @Test func aHeadAndABodyPausingLongerThanTheLimitAreIdle() async throws {
        let server = try await Fixtures.server()
        let clock = ContinuousClock()
        let start = clock.now
        let head = await failure(
            Fixtures.session.request(server.url("/fault/slow-head?interval=1800&lines=1"), options: options()))
        #expect(head?.kind == .idleTimeout)
        #expect(head?.status == nil, "the head never completed")
        let body = await failure(
            Fixtures.session.request(server.url("/fault/slow-drip?interval=1800&bytes=2"), options: options()))
        #expect(body?.kind == .idleTimeout)
        #expect(body?.status == .ok)
        #expect(clock.now - start < .seconds(3.2), "each fails after about 1 s, before its 1.8 s pause ends")
    }

    @Test func theMinimumSpeedStopsADripThatIsNeverIdle() async throws {
        let server = try await Fixtures.server()
        // 5 bytes a second for 8 s: never idle for 1 s, but below 100 bytes a second.
        let drip = server.url("/fault/slow-drip?interval=200&bytes=40")
        let clock = ContinuousClock()
        let start = clock.now
        let error = await failure(
            Fixtures.session.request(drip, options: options(minimumSpeed: MinimumSpeed(bytesPerSecond: 100, over: .seconds(1)))))
        #expect(error?.kind == .tooSlow, "\(String(describing: error))")
        #expect(error?.message.contains("less than 100 bytes per second over the last 1 s") == true)
        #expect(error?.curlCode == 28)
        #expect(clock.now - start < .seconds(5), "stopped well before the drip ends")
    }

    @Test func aTransferAboveTheMinimumSpeedCompletes() async throws {
        let server = try await Fixtures.server()
        // 5 bytes a second against a floor of 1: the floor does not fire, nor does the idle rule.
        let data = try await Fixtures.session.request(
            server.url("/fault/slow-drip?interval=200&bytes=8"),
            options: options(minimumSpeed: MinimumSpeed(bytesPerSecond: 1, over: .seconds(1)))
        ).data()
        #expect(data.count == 8)
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
