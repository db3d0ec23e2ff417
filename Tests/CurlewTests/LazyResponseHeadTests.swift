import Foundation
import HTTPTypes
import Testing
import TestServer

@testable import Curlew

@Suite("The plain response path builds no head")
struct LazyResponseHeadTests {
    let session = Fixtures.session

    @Test func aValidatedCollectedResponseIsServedWithoutBuildingItsHead() async throws {
        let server = try await Fixtures.server()
        let response = try await session.request(server.url("/bytes/100")).validate().serialized(by: DataResponseSerializer())
        #expect(response.value.count == 100)
        #expect(response.statusCode == 200)
        #expect(!response.responseHead.isBuilt, "status and validation read the status code alone")
        #expect(response.head.headerFields[.contentLength] == "100")
        #expect(response.responseHead.isBuilt)
    }

    @Test func aRequestWithAcceptIsValidatedFromItsContentTypeAlone() async throws {
        let server = try await Fixtures.server()
        let response = try await session.request(server.url("/anything"), headers: ["Accept": "application/json"])
            .validate().serialized(by: DataResponseSerializer())
        #expect(!response.responseHead.isBuilt)
        #expect(response.head.headerFields[.contentType]?.hasPrefix("application/json") == true)
    }

    @Test func theEventsStreamGetsTheBuiltHead() async throws {
        let server = try await Fixtures.server()
        var status: HTTPResponse.Status?
        for try await event in session.request(server.url("/response-headers?X-One=1&X-One=2")).events {
            if case .response(let head) = event {
                status = head.status
                #expect(head.headerFields[values: HTTPField.Name("X-One")!] == ["1", "2"])
            }
        }
        #expect(status == .ok)
    }
}
