import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// A request carries all its cookies in exactly one `Cookie` field line (RFC 6265 §5.4; HTTP/1.1
/// servers join repeated lines with a comma, which makes one wrong cookie), as the server's raw
/// header lines show.
@Suite("One Cookie line on the wire")
struct CookieLineTests {
    @Test func jarAndOwnCookiesLeaveAsOneLine() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.cookieStorage = CookieJar()
        let session = Session(configuration: configuration)
        _ = try await session.request(server.url("/cookies/set?a=1&b=2")).data()
        let echo = try Fixtures.echo(
            try await session.request(server.url("/anything/cookies"), headers: ["Cookie": "mine=1; other=2"]).data())
        let lines = echo.headerLines(named: "cookie")
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first == "mine=1; other=2; a=1; b=2")
        await session.shutdown()
    }

    @Test func ownCookieFieldsLeaveAsOneLine() async throws {
        let server = try await Fixtures.server()
        var fields = HTTPFields()
        fields.append(HTTPField(name: .cookie, value: "x=1"))
        fields.append(HTTPField(name: .cookie, value: "y=2"))
        let echo = try Fixtures.echo(
            try await Fixtures.session.request(server.url("/anything/own-cookies"), headers: RequestHeaders(fields)).data())
        #expect(echo.headerLines(named: "cookie") == ["x=1; y=2"])
    }
}
