@testable import Curlew
import Foundation
import HTTPTypes
import Testing

/// A request made from a plain http or https text keeps the text and parses a `URL` only when
/// someone reads `url` (`URLTextLayout.isPlainHTTPURL`). That is only right if every text the
/// check accepts is one `URL(string:)` parses to the same text and the transfer check passes:
/// then the request is the one the general path would have built.
@Suite struct PlainURLTextTests {
    private static let prefixes = ["http://", "https://", "HTTP://", "http:/", "ftp://", "http+unix://", "", "http://u@"]
    private static let hostPieces = ["a", "Z", "0", "9", "-", ".", "_", "~", "xn--a"]
    private static let oddHostPieces = ["%41", "[", "]", ":", "é", " ", "@"]
    private static let tailPieces = [
        "/", "?", "a", "Z", "7", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", ":", "@",
        "%2F", "%Aa", "..", "//",
    ]
    private static let oddTailPieces = ["%", "%4", "%zz", "#", " ", "[", "]", "é", "\"", "<", ">", "^", "`", "{", "|", "}", "\\", "\t"]

    /// Texts near the grammar's edge: mostly its own pieces, with one odd piece in about one
    /// of every four texts, and a prefix it accepts in about half of them.
    private static func generatedTexts(count: Int) -> [String] {
        var generator = SplitMix(seed: 0x5EED)  // Seeded: a failure names a reproducible text.
        func piece(_ usual: [String], _ odd: [String]) -> String {
            let pool = Int.random(in: 0..<40, using: &generator) == 0 ? odd : usual
            return pool.randomElement(using: &generator) ?? ""
        }
        return (0..<count).map { _ in
            let prefixIndex = Int.random(in: 0..<(prefixes.count * 2), using: &generator)
            var text = prefixes[prefixIndex < prefixes.count ? prefixIndex : prefixIndex % 2]
            for _ in 0..<Int.random(in: 0...4, using: &generator) { text += piece(hostPieces, oddHostPieces) }
            if Bool.random(using: &generator) { text += ":" + String(Int.random(in: 0...999_999, using: &generator)) }
            for _ in 0..<Int.random(in: 0...10, using: &generator) { text += piece(tailPieces, oddTailPieces) }
            return text
        }
    }

    private static func isPlain(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(URLTextLayout.isPlainHTTPURL)
    }

    @Test func everyAcceptedTextParsesToItselfAndPassesTheTransferCheck() {
        var accepted = 0
        var rejected = 0
        for text in Self.generatedTexts(count: 40_000) {
            guard Self.isPlain(text) else {
                rejected += 1
                continue
            }
            accepted += 1
            let url = URL(string: text)
            #expect(url?.absoluteString == text, "\(text.debugDescription)")
            var bytes = text
            #expect(bytes.withUTF8 { URL.transferProblem(of: $0) } == nil, "\(text.debugDescription)")
        }
        // Both sides of the check must be exercised, or the loop above proves nothing.
        #expect(accepted > 2_000)
        #expect(rejected > 2_000)
    }

    @Test(arguments: [
        "http://127.0.0.1:8080/small", "https://example.com", "http://h?q=1&r=a%2Fb", "https://a.b-c_d~e/p/;x=1/@:!$&'()*+,",
        "http://h:1/", "http://h:65535/x?y?z//", "http://localhost/%7Euser",
    ])
    func acceptsPlainURLs(text: String) throws {
        #expect(Self.isPlain(text))
        #expect(URL(string: text)?.absoluteString == text)
    }

    @Test(arguments: [
        "HTTP://h/", "http://", "http://:80/", "http://h:/", "http://h:123456/", "http://u:p@h/", "http://[::1]/",
        "http://h/#f", "http://h/a b", "http://h/%", "http://h/%4", "http://h/%zz", "http://h/é", "http+unix://%2Fs/x",
        "ftp://h/", "http:/h", "http://h\\x", "http://h/\"",
    ])
    func leavesEveryOtherTextToFoundation(text: String) {
        #expect(!Self.isPlain(text))
    }

    @Test func overTheLengthLimitIsNotPlain() {
        let path = String(repeating: "a", count: OutgoingRequest.maximumURLLength)
        #expect(!Self.isPlain("http://h/" + path))
        #expect(Self.isPlain("http://h/" + path.dropFirst("http://h/".count)))
    }

    @Test func aRequestFromPlainTextKeepsTheTextAndParsesItWhenAsked() throws {
        let text = "http://127.0.0.1:9/a?b=c"
        let request = try RequestBuilder.build(
            url: text, method: .get, headers: [:], body: nil, options: RequestOptions()
        ).get()
        #expect(request.urlText == text)
        #expect(request.url == URL(string: text))
        // The general path: a fragment is not plain, the URL is parsed at once.
        let general = try RequestBuilder.build(
            url: "http://127.0.0.1:9/a#f", method: .get, headers: [:], body: nil, options: RequestOptions()
        ).get()
        #expect(general.urlText == "http://127.0.0.1:9/a#f")
        #expect(general.url.fragment == "f")
    }

    @Test func copiesOfATextRequestReadItsURLAndChangeOnlyTheirOwn() throws {
        let original = try RequestBuilder.build(
            url: "http://127.0.0.1:9/a", method: .get, headers: [:], body: nil, options: RequestOptions()
        ).get()
        var copy = original
        copy.method = .post
        #expect(copy.url.absoluteString == "http://127.0.0.1:9/a")
        copy.url = try #require(URL(string: "http://127.0.0.1:9/b?x"))
        #expect(copy.urlText == "http://127.0.0.1:9/b?x")
        #expect(copy.method == .post)
        #expect(original.urlText == "http://127.0.0.1:9/a")
        #expect(original.url.absoluteString == "http://127.0.0.1:9/a")
        #expect(original.method == .get)
    }

    @Test func readersOnManyThreadsAllGetTheURLOfTheText() async throws {
        let request = try RequestBuilder.build(
            url: "http://127.0.0.1:9/shared", method: .get, headers: [:], body: nil, options: RequestOptions()
        ).get()
        let urls = await withTaskGroup(of: URL.self) { group in
            for _ in 0..<64 { group.addTask { request.url } }
            return await group.reduce(into: [URL]()) { $0.append($1) }
        }
        #expect(urls.count == 64)
        #expect(Set(urls.map(\.absoluteString)) == ["http://127.0.0.1:9/shared"])
    }

    @Test func aBadHeaderOfAPlainTextRequestNamesTheURL() {
        let result = RequestBuilder.build(
            url: "http://127.0.0.1:9/h", method: .get, headers: ["X-Bad": "a\r\nb"], body: nil,
            options: RequestOptions())
        guard case .failure(let error) = result else {
            Issue.record("a value with CR LF was accepted")
            return
        }
        #expect(error.kind == .invalidHeader)
        #expect(error.url?.absoluteString == "http://127.0.0.1:9/h")
    }
}
