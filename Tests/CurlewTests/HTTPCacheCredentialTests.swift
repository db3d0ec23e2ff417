import Foundation
import HTTPTypes
import Testing

@testable import Curlew

/// The cache in a session that acts for many users (#28, defect 2): for every way a request can
/// carry credentials or cookies, a response stored for one user never answers another user or
/// an anonymous request — as a hit, to a coalesced waiter, or through a revalidation — and what
/// the server saw on the wire proves each went to the network with its own credentials.
@Suite struct HTTPCacheCredentialTests {
    typealias Way = CredentialCacheBed.Way
    typealias User = CredentialCacheBed.User

    /// Alice's response (`public, max-age=60`, which RFC 9111 lets any cache store) answers Alice
    /// again, and never an anonymous request; the anonymous one is then stored for anonymous ones.
    @Test(arguments: Way.allCases)
    func anAnonymousRequestNeverGetsAUsersResponse(way: Way) async throws {
        try await CredentialCacheBed.with(way) { bed in
            let first = try await bed.get(user: .alice)
            #expect(first.status == .miss && first.body == bed.body(1, .alice))
            let again = try await bed.get(user: .alice)
            #expect(again.status == .hit && again.body == bed.body(1, .alice))
            let stranger = try await bed.get(user: nil)
            #expect(stranger.status == .miss && stranger.body == bed.body(2, nil))
            #expect(try await bed.get(user: nil).status == .hit)
            let wire = way.wire(.alice)
            #expect(bed.seen().map(\.authorization) == [wire.authorization, nil])
            #expect(bed.seen().map(\.cookie) == [wire.cookie, nil])
        }
    }

    /// Bob never gets Alice's response: he goes to the network with his own credentials, and
    /// each of them is answered from their own entry afterwards.
    @Test(arguments: Way.allCases)
    func anotherUserNeverGetsAUsersResponse(way: Way) async throws {
        try await CredentialCacheBed.with(way) { bed in
            _ = try await bed.get(user: .alice)
            let bob = try await bed.get(user: .bob)
            #expect(bob.status == .miss && bob.body == bed.body(2, .bob))
            let bobAgain = try await bed.get(user: .bob)
            #expect(bobAgain.status == .hit && bobAgain.body == bed.body(2, .bob))
            let aliceAgain = try await bed.get(user: .alice)
            #expect(aliceAgain.status == .hit && aliceAgain.body == bed.body(1, .alice))
            #expect(bed.seen().map(\.authorization) == [way.wire(.alice).authorization, way.wire(.bob).authorization])
            #expect(bed.seen().map(\.cookie) == [way.wire(.alice).cookie, way.wire(.bob).cookie])
        }
    }

    /// Who leads a load and who arrives while it runs.
    enum Pair: String, CaseIterable, CustomStringConvertible {
        case aliceThenAnonymous, anonymousThenAlice, aliceThenBob
        var description: String { rawValue }
        var leader: User? { self == .anonymousThenAlice ? nil : .alice }
        var follower: User? { self == .aliceThenAnonymous ? nil : (self == .anonymousThenAlice ? .alice : .bob) }
    }

    /// The leader's request is held at the server while the follower's arrives: the follower is
    /// never handed the leader's response (it makes its own request), whichever of them has
    /// credentials. Before the fix, an anonymous waiter woke to Alice's stored response.
    @Test(arguments: Way.allCases, Pair.allCases)
    func aRequestArrivingDuringAnothersLoadIsNotHandedItsResponse(way: Way, pair: Pair) async throws {
        try await CredentialCacheBed.with(way) { bed in
            let query = ["hold": "1"]
            async let leader = bed.get(query: query, user: pair.leader)
            try await waitUntil { bed.gate.waiting == 1 }
            async let follower = bed.get(query: query, user: pair.follower)
            // Either it waits for the leader's load (coalesced), or it went to the server itself.
            try await waitUntil { bed.cache.coalescedWaiterCount == 1 || bed.seen().count == 2 }
            bed.gate.open()
            let (led, followed) = try await (leader, follower)
            #expect(led.body == bed.body(1, pair.leader) && led.status == .miss)
            #expect(followed.body == bed.body(2, pair.follower) && followed.status == .miss)
            #expect(bed.seen().map(\.authorization) == [pair.leader, pair.follower].map { $0.flatMap { way.wire($0).authorization } })
            #expect(bed.seen().map(\.cookie) == [pair.leader, pair.follower].map { $0.flatMap { way.wire($0).cookie } })
        }
    }

    /// RFC 9111 §3.5, for every way of attaching credentials: without `public`,
    /// `must-revalidate` or `s-maxage`, a response to a request with credentials is not stored
    /// (Alice's second request goes to the server). Cookies do not restrict storing: Alice's
    /// cookie response is stored for requests with her cookies only.
    @Test(arguments: Way.allCases)
    func withoutPublicAResponseToCredentialsIsNotStored(way: Way) async throws {
        try await CredentialCacheBed.with(way) { bed in
            let query = ["cc": "max-age=60"]
            _ = try await bed.get(query: query, user: .alice)
            let again = try await bed.get(query: query, user: .alice)
            if way.isCredential {
                #expect(again.status == .miss && again.body == bed.body(2, .alice))
            } else {
                #expect(again.status == .hit && again.body == bed.body(1, .alice))
            }
            let stranger = try await bed.get(query: query, user: nil)
            #expect(stranger.status == .miss && !stranger.body.contains("alice"))
            #expect(bed.cache.statistics.memoryEntries == (way.isCredential ? 1 : 2))
        }
    }

    /// A revalidation never crosses users: Bob's request does not send the validator of Alice's
    /// entry (which a server with one `ETag` for both would confirm with `304`, handing Bob
    /// Alice's body); Alice's own revalidation does.
    @Test(arguments: Way.allCases)
    func aUsersEntryIsNeverRevalidatedForAnother(way: Way) async throws {
        try await CredentialCacheBed.with(way) { bed in
            let query = ["cc": "public, no-cache", "etag": "\"v1\""]
            _ = try await bed.get(query: query, user: .alice)
            let again = try await bed.get(query: query, user: .alice)
            #expect(again.status == .revalidated && again.body == bed.body(1, .alice))
            let bob = try await bed.get(query: query, user: .bob)
            #expect(bob.status == .miss && bob.body == bed.body(3, .bob))
            let stranger = try await bed.get(query: query, user: nil)
            #expect(stranger.status == .miss && stranger.body == bed.body(4, nil))
            #expect(bed.seen().map(\.ifNoneMatch) == [nil, "\"v1\"", nil, nil])
        }
    }

    /// A POST by anyone invalidates the URL for everyone: every user's entry goes.
    @Test func anUnsafeRequestInvalidatesEveryUsersEntry() async throws {
        try await CredentialCacheBed.with(.authorizationField) { bed in
            _ = try await bed.get(user: .alice)
            _ = try await bed.get(user: .bob)
            _ = try await bed.get(user: nil)
            #expect(bed.cache.statistics.memoryEntries == 3)
            _ = try await bed.anonymous.request(bed.url(), method: .post, body: .data(Data("x".utf8))).data()
            #expect(bed.cache.statistics.memoryEntries == 0)
            #expect(try await bed.get(user: .alice).status == .miss)
            _ = try await bed.get(user: .bob)
            bed.cache.removeResponse(for: bed.url())
            #expect(bed.cache.statistics.memoryEntries == 0)
        }
    }
}
