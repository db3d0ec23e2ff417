import Curlew
import Foundation
import Testing
import TestServer

/// Timing tests: the name holds "Timing", so scripts/test.sh runs them in its serial phase,
/// where no other test's load can stall a drip past a limit.
@Suite("One idle rule for head and body, and a minimum speed")
struct IdleRuleTimingTests {
    /// A transfer paused because its consumer is slow is waiting on the consumer, not on the
    /// server: the idle timeout must not fire.
    @Test func aPausedTransferIsNotIdle() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.streamBufferSize = 64 << 10
        // The pause (5 s) exceeds the idle limit (3 s); the limit is wide enough that a loaded
        // machine's stalls while the rest of the body streams do not reach it.
        configuration.timeouts.idle = .seconds(3)
        let session = Session(configuration: configuration)
        var received = 0
        var slept = false
        for try await chunk in session.request(server.url("/bytes/\(8 << 20)")).validate().bytes {
            received += chunk.count
            if !slept {
                slept = true
                try await Task.sleep(for: .seconds(5))
            }
        }
        #expect(received == 8 << 20)
        await session.shutdown()
    }

    /// An idle limit of 5 s: ten times the pace of the slow tests. The test server shares its
    /// event loops with every other test, and on a loaded machine (load 16 on 2 cores in the
    /// evidence runs) a drip stalled for more than 2 s now and then.
    private func options(idle: Duration = .seconds(5), minimumSpeed: MinimumSpeed? = nil) -> RequestOptions {
        var options = RequestOptions()
        options.timeouts.idle = idle
        options.timeouts.minimumSpeed = minimumSpeed
        return options
    }

    @Test func aHeadAndABodyArrivingInStepsShorterThanTheLimitAreNotIdle() async throws {
        let server = try await Fixtures.server()
        // Twelve header lines 500 ms apart: 6 s for the head, longer than the 5 s limit, but
        // never 5 s without a line (counting only the status line, this timed out).
        async let head = Fixtures.session.request(server.url("/fault/slow-head?interval=500&lines=12"), options: options())
            .response
        // Twelve body bytes 500 ms apart, the same pace, at the same time.
        async let body = Fixtures.session.request(server.url("/fault/slow-drip?interval=500&bytes=12"), options: options())
            .data()
        #expect(try await head.head.headerFields[.init("X-Drip-11")!] == "11")
        #expect(try await body.count == 12)
    }

    @Test func aHeadAndABodyPausingLongerThanTheLimitAreIdle() async throws {
        let server = try await Fixtures.server()
        // Pauses of 10 s against a limit of 3 s; without the limit both would succeed once their
        // pause ends, so the kinds below are the check, and no time bound is needed. The limit
        // leaves the head of the body request 3 s to arrive on a loaded machine.
        async let head = failure(
            Fixtures.session.request(server.url("/fault/slow-head?interval=10000&lines=1"), options: options(idle: .seconds(3))))
        async let body = failure(
            Fixtures.session.request(server.url("/fault/slow-drip?interval=10000&bytes=2"), options: options(idle: .seconds(3))))
        let (headError, bodyError) = await (head, body)
        #expect(headError?.kind == .idleTimeout)
        #expect(headError?.status == nil, "the head never completed")
        #expect(bodyError?.kind == .idleTimeout)
        #expect(bodyError?.status == .ok, "the limit applies to the body too")
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
        // 10 bytes a second for 6 s against a floor of 1 over 4 s: the floor is checked but does
        // not fire (only a stall of about 4 s would make it).
        let data = try await Fixtures.session.request(
            server.url("/fault/slow-drip?interval=100&bytes=60"),
            options: options(minimumSpeed: MinimumSpeed(bytesPerSecond: 1, over: .seconds(4)))
        ).data()
        #expect(data.count == 60)
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
        let relaxed = try await session.request(drip, options: options(minimumSpeed: MinimumSpeed(bytesPerSecond: 1, over: .seconds(5))))
            .data()
        #expect(relaxed.count == 15)
    }

    @Test func aPooledHandleDoesNotKeepAnEarlierRequestsFloor() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        defer { Task { await session.shutdown() } }
        // 100 kB in one go: far above the floor, unless the machine stalls it for 3 s.
        let floor = options(minimumSpeed: MinimumSpeed(bytesPerSecond: 1000, over: .seconds(3)))
        #expect(try await session.request(server.url("/bytes/100000"), options: floor).data().count == 100_000)
        // The same (only) handle next, without a floor: 5 bytes a second for 4 s is fine, and
        // would fail if the handle kept the floor.
        let slow = try await session.request(server.url("/fault/slow-drip?interval=200&bytes=20"), options: options()).data()
        #expect(slow.count == 20)
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
