import Curlew
import Foundation
import Testing
import TestServer

/// Which empty bodies the built-in serializers accept, against the test server: `.data` and
/// `.string` give the empty value whatever the status; serializers that need content accept an
/// empty body only for 204, 205 and HEAD, and throw `.emptyResponse` elsewhere.
@Suite("Empty bodies")
struct EmptyBodyTests {
    let session = Fixtures.session

    struct Item: Decodable, Sendable {
        let id: Int
    }

    private func empty200(_ server: TestServer) -> URL {
        server.url("/content-type?type=application%2Fjson&body=")
    }

    @Test func anEmpty200IsEmptyDataAndEmptyText() async throws {
        let server = try await Fixtures.server()
        let response = try await session.request(empty200(server)).response
        #expect(response.status.code == 200)
        #expect(response.value.isEmpty)
        #expect(try await session.request(empty200(server)).data().isEmpty)
        #expect(try await session.request(empty200(server)).string() == "")
    }

    @Test func anEmpty200IsAnErrorForDecoding() async throws {
        let server = try await Fixtures.server()
        do {
            _ = try await session.request(empty200(server)).decode(Item.self)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .emptyResponse)
            #expect(error.status?.code == 200)
        }
        // Even `Empty` needs 204, 205 or HEAD: a 200 promises content.
        do {
            _ = try await session.request(empty200(server)).decode(Empty.self)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .emptyResponse)
        }
        do {
            _ = try await session.request(empty200(server)).serialized(by: .json).value
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .emptyResponse)
        }
    }

    @Test func a204GivesTheEmptyValue() async throws {
        let server = try await Fixtures.server()
        #expect(try await session.request(server.url("/status/204")).decode(Empty.self) == Empty.value)
        #expect(try await session.request(server.url("/status/204")).data().isEmpty)
        #expect(try await session.request(server.url("/status/204")).string() == "")
        // A type that has no empty value still cannot be made from nothing.
        do {
            _ = try await session.request(server.url("/status/204")).decode(Item.self)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .emptyResponse)
        }
    }

    @Test func aHeadRequestGivesTheEmptyValue() async throws {
        let server = try await Fixtures.server()
        let url = server.url("/bytes/100")
        #expect(try await session.request(url, method: .head).decode(Empty.self) == Empty.value)
        #expect(try await session.request(url, method: .head).data().isEmpty)
        #expect(try await session.request(url, method: .head).serialized(by: .json).value == .null)
    }
}
