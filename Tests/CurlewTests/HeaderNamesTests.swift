import Foundation
import HTTPTypes
import Testing

@testable import Curlew

@Suite("Header names from raw bytes")
struct HeaderNamesTests {
    private func name(_ text: String) -> HTTPField.Name? {
        Array(text.utf8).withUnsafeBytes { HeaderNames.name($0) }
    }

    private func role(_ text: String) -> HeaderNames.Role {
        Array(text.utf8).withUnsafeBytes { HeaderNames.role($0) }
    }

    @Test func commonNamesMatchInAnyCase() {
        #expect(name("Content-Type") == .contentType)
        #expect(name("CONTENT-LENGTH") == .contentLength)
        #expect(name("etag") == .eTag)
        #expect(name("Set-Cookie") == .setCookie)
    }

    @Test func otherNamesAreValidatedAndInvalidOnesRejected() {
        #expect(name("X-Custom-Thing")?.canonicalName == "x-custom-thing")
        #expect(name("Content-Typf")?.canonicalName == "content-typf")
        #expect(name("bad name") == nil)
        #expect(name("") == nil)
    }

    @Test func theFieldsTheTransferReadsAreToldApart() {
        #expect(role("content-length") == .contentLength)
        #expect(role("Content-Encoding") == .contentEncoding)
        #expect(role("LOCATION") == .location)
        #expect(role("Transfer-Encoding") == .transferEncoding)
        #expect(role("set-COOKIE") == .setCookie)
        #expect(role("Content-Type") == .contentType)
        #expect(role("X-Location") == .other)
        #expect(role("Locatioo") == .other)
        #expect(role("Content-Typf") == .other)
        #expect(role("") == .other)
    }
}
