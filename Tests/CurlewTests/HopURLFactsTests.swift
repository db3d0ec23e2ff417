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

    @Test(arguments: [
        "http://127.0.0.1:8080/small", "https://example.com", "https://h/p?q=@", "http://s", "https://s:443/x/y;z",
    ])
    func aPlainTextRequestsFactsAreTheTextsFacts(text: String) throws {
        let request = try RequestBuilder.build(
            url: text, method: .get, headers: [:], body: nil, options: RequestOptions()
        ).get()
        #expect(request.hasPlainURLText)
        #expect(HopURLFacts(of: request) == HopURLFacts(text))
        // A request given a URL takes the general reading, with the same facts.
        let general = OutgoingRequest(url: request.url)
        #expect(!general.hasPlainURLText)
        #expect(HopURLFacts(of: general) == HopURLFacts(text))
    }
}
