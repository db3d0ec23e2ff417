@testable import Curlew
import Foundation
import Testing

/// `String.asURL()` asks `URLTextLayout.startsWithScheme` instead of `URL.scheme` (which parses
/// the text again); for every text Foundation parses, the two must agree, except that an empty
/// scheme (Foundation reads `":x"` as scheme `""`) is no scheme.
@Suite struct URLSchemePrefixTests {
    static let texts = [
        "http://127.0.0.1/a", "HTTPS://example.com", "http+unix://%2Frun%2Fa.sock/x", "a:b", "z:", "x-y.z+w:rest",
        "mailto:someone@example.com", "/relative/path", "relative", "", ":no-scheme", "1http://a", "ht tp://a",
        " http://a", "http", "-a:b", ".a:b", "a_b:c", "é:x", "//host/path", "?q=1", "#f", "A1+-.:",
    ]

    @Test(arguments: texts)
    func agreesWithFoundation(text: String) {
        guard let url = URL(string: text) else { return }  // `asURL` fails before asking.
        let foundationHasScheme = url.scheme.map { !$0.isEmpty } ?? false
        #expect(URLTextLayout.startsWithScheme(text) == foundationHasScheme, "\(text.debugDescription)")
    }

    @Test func relativeTextIsNotAnAbsoluteURL() {
        #expect(throws: CurlewError.self) { try "/relative/path".asURL() }
        #expect(throws: CurlewError.self) { try "1http://a".asURL() }
        #expect(throws: CurlewError.self, "an empty scheme is none") { try ":no-scheme".asURL() }
        #expect((try? "a:b".asURL()) != nil)
        #expect((try? "http://127.0.0.1/".asURL())?.absoluteString == "http://127.0.0.1/")
    }

    @Test func foundationParsesMostOfTheCorpus() {
        // Guards the comparison above against a Foundation that rejects everything.
        #expect(Self.texts.filter { URL(string: $0) != nil }.count >= 15)
    }
}
