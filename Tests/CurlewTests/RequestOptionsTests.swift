@testable import Curlew
import Foundation
import Testing

/// `RequestOptions` keeps its fields in a box shared between copies (copy on write): a change to
/// one copy must never show in another, nor in the shared box of options that override nothing.
@Suite struct RequestOptionsTests {
    @Test func changingACopyLeavesTheOriginal() {
        var original = RequestOptions()
        original.maximumBodySize = 10
        var copy = original
        copy.maximumBodySize = 20
        copy.timeouts.connect = .seconds(3)
        #expect(original.maximumBodySize == 10)
        #expect(original.timeouts.connect == nil)
        #expect(copy.maximumBodySize == 20)
        #expect(copy.timeouts.connect == .seconds(3))
    }

    @Test func changingDefaultOptionsLeavesEveryOtherDefault() {
        var changed = RequestOptions()
        changed.unixSocketPath = "/run/app.sock"
        changed.waitsForConnectivity = .seconds(1)
        let fresh = RequestOptions()
        #expect(fresh.unixSocketPath == nil)
        #expect(fresh.waitsForConnectivity == nil)
        #expect(changed.unixSocketPath == "/run/app.sock")
    }

    @Test func aRequestKeepsItsOptionsWhenACopyOfTheRequestChangesThem() throws {
        var request = OutgoingRequest(url: try #require(URL(string: "http://127.0.0.1/")))
        request.options.httpVersion = .http1_1
        var adapted = request
        adapted.options.httpVersion = .http2PriorKnowledge
        adapted.options.httpCredential = HTTPCredential(username: "u", password: "p")
        #expect(request.options.httpVersion == .http1_1)
        #expect(request.options.httpCredential == nil)
        #expect(adapted.options.httpVersion == .http2PriorKnowledge)
    }
}

/// The one-pass check of a request URL's text gives the verdicts Foundation's `scheme` and `host`
/// getters gave: each case names the rule it pins down.
@Suite struct URLTransferCheckTests {
    private func problem(_ text: String) -> URL.TransferProblem? {
        Array(text.utf8).withUnsafeBufferPointer { URL.transferProblem(of: $0) }
    }

    @Test func acceptedURLs() {
        for text in [
            "http://127.0.0.1/", "https://example.com", "HTTP://Example.COM:8080/a?b#c", "http://user:pw@host/",
            "http://[::1]:8080/x", "http+unix://%2Frun%2Fapp.sock/info", "HtTpS://h", "http://h:/",
            "http://a@b@host/",
        ] {
            #expect(problem(text) == nil, "\(text)")
        }
    }

    @Test func schemes() {
        #expect(problem("example.com/path") == .noScheme)
        #expect(problem(":80") == .noScheme)
        #expect(problem("1http://h/") == .noScheme)
        #expect(problem("ftp://h/") == .unsupportedScheme("ftp"))
        #expect(problem("httpx://h/") == .unsupportedScheme("httpx"))
        #expect(problem("htt://h/") == .unsupportedScheme("htt"))
        #expect(problem("file:///etc/passwd") == .unsupportedScheme("file"))
    }

    @Test func hosts() {
        #expect(problem("http:/h/") == .noHost)
        #expect(problem("http:h") == .noHost)
        #expect(problem("http:///path") == .noHost)
        #expect(problem("http://user@/path") == .noHost)
        #expect(problem("http://:8080/") == .noHost)
        #expect(problem("http://[]/") == .noHost)
        #expect(problem("http://[::1/") == .noHost)
        #expect(problem("http://?q") == .noHost)
    }

    @Test func lengthAndControlCharacters() {
        let long = "http://h/" + String(repeating: "a", count: OutgoingRequest.maximumURLLength - 9)
        #expect(problem(long) == nil)
        #expect(problem(long + "a") == .tooLong(OutgoingRequest.maximumURLLength + 1))
        #expect(problem("http://h/a b") == .controlCharacters)
        #expect(problem("http://h/\u{7F}") == .controlCharacters)
        #expect(problem("http://h/\t") == .controlCharacters)
    }
}

/// `TransferSettings` takes the session's values without reading options that override
/// nothing (`RequestOptions.isUntouchedDefault`); options that were changed are always read,
/// also when changed back to their default values.
@Suite struct UntouchedOptionsTests {
    @Test func onlyOptionsNeverChangedAreTheUntouchedDefault() {
        var changedBack = RequestOptions()
        changedBack.maximumBodySize = 10
        changedBack.maximumBodySize = nil
        var copyOfChanged = RequestOptions()
        copyOfChanged.httpVersion = .http1_1
        let copy = copyOfChanged
        #expect(RequestOptions().isUntouchedDefault)
        #expect(changedBack.isUntouchedDefault == false)
        #expect(copy.isUntouchedDefault == false)
    }

    @Test func aChangedOptionOverridesTheSession() {
        var configuration = SessionConfiguration()
        configuration.maximumBodySize = 1000
        configuration.httpVersion = .http1_1
        let session = SessionTransferSettings(configuration: configuration)
        var options = RequestOptions()
        options.maximumBodySize = 10
        options.httpVersion = .http2OverTLS
        let untouched = TransferSettings(session: session, options: RequestOptions())
        let changed = TransferSettings(session: session, options: options)
        #expect(untouched.maximumBodySize == 1000)
        #expect(untouched.httpVersion == .http1_1)
        #expect(untouched.proxyOverride == nil && untouched.credential == nil)
        #expect(changed.maximumBodySize == 10)
        #expect(changed.httpVersion == .http2OverTLS)
    }
}
