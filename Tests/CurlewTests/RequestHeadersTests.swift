@testable import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// `RequestHeaders`, the one header argument: what it keeps, in which order, what it refuses,
/// and what arrives on the wire.
@Suite("Request headers")
struct RequestHeadersTests {
    @Test func namesThatDifferOnlyInCaseReplaceEachOtherWhereTheFirstStood() throws {
        let headers: RequestHeaders = ["key": "a", "X-Other": "o", "Key": "b"]
        let fields = try headers.fields(for: nil)
        #expect(fields.map(\.name.rawName) == ["Key", "X-Other"])
        #expect(fields.map(\.value) == ["b", "o"])
        #expect(headers["KEY"] == "b")
    }

    @Test func aLiteralKeepsTheOrderItWasWrittenIn() throws {
        let headers: RequestHeaders = ["Zeta": "1", "Alpha": "2", "Mid": "3"]
        #expect(try headers.fields(for: nil).map(\.name.rawName) == ["Zeta", "Alpha", "Mid"])
        // A dictionary has no order: its fields go in name order, whatever its hashing.
        let fromDictionary = RequestHeaders(["Zeta": "1", "Alpha": "2", "Mid": "3"])
        #expect(try fromDictionary.fields(for: nil).map(\.name.rawName) == ["Alpha", "Mid", "Zeta"])
    }

    @Test func fieldsAreTakenAsTheyAreUntilChanged() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .accept, value: "a/b"))
        fields.append(HTTPField(name: .accept, value: "c/d"))
        var headers = RequestHeaders(fields)
        #expect(try headers.fields(for: nil) == fields, "repeated names of HTTPFields stay")
        #expect(headers["accept"] == "c/d")
        headers["Accept"] = "e/f"
        #expect(try headers.fields(for: nil).map(\.value) == ["e/f"])
        headers["accept"] = nil
        #expect(headers.isEmpty)
        #expect(RequestHeaders(fields) == RequestHeaders(fields))
    }

    @Test(arguments: [("X-Bad", "a\r\nInjected: yes"), ("X-Nul", "a\u{0}b"), ("Bad Name", "v"), ("", "v")])
    func aNameOrValueThatCannotGoOnTheWireFailsTheRequest(name: String, value: String) async throws {
        let server = try await Fixtures.server()
        let url = server.url("/anything/bad-header")
        do {
            _ = try await Fixtures.session.request(url, headers: [name: value]).data()
            Issue.record("\(name.debugDescription) was sent")
        } catch {
            #expect(error.kind == .invalidHeader, "\(error)")
            #expect(error.url == url)
        }
        #expect(server.requestCount(path: "/anything/bad-header") == 0)
    }

    @Test func whatArrivesIsOneFieldPerNameInTheOrderWritten() async throws {
        let server = try await Fixtures.server()
        let echo = try Fixtures.echo(try await Fixtures.session.request(
            server.url("/anything"), headers: ["x-one": "1", "X-Two": "2", "X-ONE": "3"]).data())
        #expect(echo.headerLines(named: "x-one") == ["3"])
        let ours = echo.headerLines.compactMap(\.first).filter { $0.lowercased().hasPrefix("x-") }
        #expect(ours == ["X-ONE", "X-Two"], "\(ours)")
    }

    @Test func theDescriptionHidesCredentials() {
        let headers: RequestHeaders = ["Authorization": "Bearer s3cret", "X-Api-Key": "k3y", "Accept": "text/csv"]
        #expect(!headers.description.contains("s3cret") && !headers.description.contains("k3y"))
        #expect(headers.description.contains("Accept: text/csv"))
    }
}
