@testable import Curlew
import Testing

/// `HopURLFacts` reads the scheme and the user info from a URL's text in one pass.
@Suite("Hop URL facts")
struct HopURLFactsTests {
    @Test(arguments: [
        ("https://example.com/", true, false),
        ("HTTPS://example.com/", true, false),
        ("HtTpS://example.com", true, false),
        ("http://example.com/", false, false),
        ("httpsx://example.com/", false, false),
        ("http+unix://%2Ftmp%2Fs.sock/info", false, true),
        ("HTTP+UNIX://%2Ftmp%2Fs.sock/", false, true),
        ("http+unixy://x/", false, false),
        ("http+uni://x/", false, false),
        ("https", false, false),
        ("", false, false),
    ])
    func scheme(url: String, isHTTPS: Bool, isUnixScheme: Bool) {
        let facts = HopURLFacts(url)
        #expect(facts.isHTTPS == isHTTPS)
        #expect(facts.isUnixScheme == isUnixScheme)
    }

    @Test func userInfoIsReadFromTheAuthorityOfAnyScheme() {
        #expect(HopURLFacts("https://user:pw@example.com/").hasUserInfo)
        #expect(HopURLFacts("http+unix://me@%2Fs/").hasUserInfo)
        #expect(HopURLFacts("HTTPS://user@example.com").hasUserInfo)
        #expect(!HopURLFacts("https://example.com/a@b").hasUserInfo)
        #expect(!HopURLFacts("https://example.com?x=@").hasUserInfo)
        #expect(!HopURLFacts("https://example.com#@").hasUserInfo)
        #expect(!HopURLFacts("mailto:me@example.com").hasUserInfo)
        #expect(!HopURLFacts("https:/user@example.com").hasUserInfo)
    }
}
