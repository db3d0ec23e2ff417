import Curlew
import Foundation
import Testing
import TestServer

/// `validate(contentType:)` and the standard validation's Content-Type check, against the test
/// server: an explicit empty list accepts only responses without a body (as in Alamofire), no
/// `Accept` header accepts anything, and failures list the acceptable types sorted.
@Suite("Content-Type validation")
struct ContentTypeValidationTests {
    let session = Fixtures.session

    @Test func anEmptyListRejectsAResponseWithABody() async throws {
        let server = try await Fixtures.server()
        do {
            _ = try await session.request(server.contentTypeURL(type: "text/plain", body: "hello")).validate(contentType: []).data()
            Issue.record("expected a content type error")
        } catch {
            #expect(error.kind == .unacceptableContentType)
            #expect(error.acceptableContentTypes == [])
        }
    }

    @Test func anEmptyListAcceptsResponsesWithoutABody() async throws {
        let server = try await Fixtures.server()
        let empty = try await session.request(server.contentTypeURL(type: "text/plain", body: "")).validate(contentType: []).data()
        #expect(empty.isEmpty)
        let noContent = try await session.request(server.url("/status/204")).validate(contentType: []).response
        #expect(noContent.status.code == 204)
        let head = try await session.request(server.url("/bytes/100"), method: .head).validate(contentType: []).response
        #expect(head.status.code == 200)
    }

    @Test func withoutAnAcceptHeaderTheStandardValidationAcceptsAnyType() async throws {
        let server = try await Fixtures.server()
        let text = try await session.request(server.contentTypeURL(type: "application/x-odd", body: "x")).validate().string()
        #expect(text == "x")
    }

    @Test func failuresListTheAcceptableTypesSorted() async throws {
        let server = try await Fixtures.server()
        do {
            _ = try await session.request(server.url("/xml"))
                .validate(contentType: ["text/plain", "application/json", "image/*"]).data()
            Issue.record("expected a content type error")
        } catch {
            #expect(error.kind == .unacceptableContentType)
            #expect(error.acceptableContentTypes == ["application/json", "image/*", "text/plain"])
            #expect(error.message.contains("application/json, image/*, text/plain"))
        }
        do {
            _ = try await session.request(server.url("/xml"), headers: ["Accept": "text/plain, application/json"]).validate().data()
            Issue.record("expected a content type error")
        } catch {
            #expect(error.acceptableContentTypes == ["application/json", "text/plain"])
        }
        do {
            _ = try await session.request(server.url("/status/500")).validate().data()
            Issue.record("expected a status error")
        } catch {
            #expect(error.acceptableContentTypes == nil)
        }
    }
}
