@testable import Curlew
import Foundation
import Testing

/// Regression tests for a parsing difference found by the `setcookie` fuzz target (Fuzz/):
/// the field was split on the Characters ";" and "=", so a combining mark right after one of
/// them (a grapheme cluster of its own) hid it. RFC 6265 splits on the octets.
@Suite("Set-Cookie: separators followed by combining marks")
struct SetCookieCombiningMarkTests {
    let url = URL(string: "https://www.example.com/a/b")!
    let now = Date(timeIntervalSince1970: 1_780_000_000)

    func stored(_ field: String) -> Cookie? {
        guard case .store(let cookie) = SetCookieParser.parse(field, from: url, now: now) else { return nil }
        return cookie
    }

    @Test func aValueMayStartWithACombiningMark() throws {
        let cookie = try #require(stored("a=\u{0301}b"))
        #expect(cookie.name == "a")
        #expect(Array(cookie.value.unicodeScalars) == Array("\u{0301}b".unicodeScalars))
    }

    @Test func aSemicolonBeforeACombiningMarkStillEndsThePair() throws {
        let cookie = try #require(stored("a=b;\u{0301}x=1; Path=/p"))
        #expect(cookie.value == "b")
        #expect(cookie.path == "/p")
    }

    @Test func anAttributeNameEndsAtItsEqualsSign() throws {
        // "Secure" with a value is still Secure (RFC 6265 §5.2.5 ignores the value).
        let cookie = try #require(stored("a=b; Secure=\u{0301}x"))
        #expect(cookie.isSecure)
    }

    @Test func theFuzzInputRoundTrips() throws {
        // The stored value starts with U+05C4 once the tab after "=" is trimmed.
        let cookie = try #require(stored("~\u{FFFD}=\t\u{05C4}\u{FFFD})"))
        #expect(stored("\(cookie.name)=\(cookie.value); Path=\(cookie.path)") == cookie)
    }
}
