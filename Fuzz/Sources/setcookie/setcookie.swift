// Fuzz target `setcookie`: SetCookieParser (RFC 6265 §5.2 / §5.3 and the RFC 6265bis rules).
//
// Input: byte 0 picks the request URL from a fixed list (http, https, loopback, IP, IPv6,
// deep paths); the rest is the Set-Cookie field value.
//
// Properties of every stored cookie:
// - a non-empty name with no control character, space, `=` or `;`; a value with no control
//   character but tab and no `;`; name plus value at most 4096 bytes; neither starts or ends
//   with whitespace;
// - a path starting with `/`; a host-only cookie's domain is the request host, any other
//   domain-matches it and is not a public suffix;
// - an expiry no later than 400 days from now, and in whole seconds;
// - Secure only from a secure channel; SameSite=None only with Secure; `__Secure-` only
//   with Secure; `__Host-` only Secure, host-only and with path `/`.
// And a round trip: the cookie rendered back as a Set-Cookie field (attribute names in a
// fuzz-chosen letter case, Expires as an IMF-fixdate) parses to the same cookie.
@testable import Curlew
import Foundation
import FuzzSupport

let urls = [
    "https://www.example.com/a/b/c", "http://example.com", "http://localhost:8080/x/", "https://sub.example.co.uk/p?q=1",
    "http://127.0.0.1/dir/file", "http://[::1]/", "https://EXAMPLE.org./%7Euser/a%20b", "ftp://example.com/",
    "https://a.b.c.d.example.net/deep/path/",
].map { URL(string: $0)! }

let now = Date(timeIntervalSince1970: 1_780_000_000)

func mixCase(_ text: String, _ input: inout FuzzInput) -> String {
    let mask = input.byte()
    return String(text.enumerated().map { index, character in mask >> (index % 8) & 1 == 1 ? Character(character.uppercased()) : character })
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let url = urls[Int(input.byte()) % urls.count]
    let caseBytes = FuzzInput(bytes: Array(input.bytes.prefix(8)))
    let field = String(decoding: input.rest(), as: UTF8.self)

    guard case .store(let cookie) = SetCookieParser.parse(field, from: url, now: now) else { return 0 }
    let host = CookieRules.canonicalDomain(url.host!)
    let what = "\(field.debugDescription) from \(url) gave \(cookie)"

    func clean(_ byte: UInt8) -> Bool { byte >= 0x20 && byte != 0x7F && byte != UInt8(ascii: ";") }
    check(!cookie.name.isEmpty && cookie.name.utf8.allSatisfy { clean($0) && $0 != 0x20 && $0 != 0x3D }, "name: \(what)")
    check(cookie.value.utf8.allSatisfy { clean($0) || $0 == 0x09 }, "value: \(what)")
    check(cookie.name.utf8.count + cookie.value.utf8.count <= 4096, "size: \(what)")
    for text in [cookie.name, cookie.value] {
        check(text.trimmingCharacters(in: .whitespaces) == text, "untrimmed: \(what)")
    }
    check(cookie.path.hasPrefix("/"), "path: \(what)")
    if cookie.isHostOnly {
        check(cookie.domain == host, "host-only domain: \(what)")
    } else {
        check(CookieRules.domainMatches(host, cookie.domain), "domain does not match: \(what)")
        check(!PublicSuffixes.isPublicSuffix(cookie.domain), "public suffix: \(what)")
    }
    if let expiry = cookie.expiresAt {
        check(expiry <= now.addingTimeInterval(400 * 86_400), "expiry past 400 days: \(what)")
        check(expiry.timeIntervalSince1970.rounded() == expiry.timeIntervalSince1970, "fractional expiry: \(what)")
    }
    if cookie.isSecure { check(CookieRules.isSecureChannel(url), "Secure over http: \(what)") }
    if cookie.sameSite == Cookie.SameSite.none { check(cookie.isSecure, "SameSite=None without Secure: \(what)") }
    if cookie.name.hasPrefix("__Secure-") { check(cookie.isSecure, "__Secure- without Secure: \(what)") }
    if cookie.name.hasPrefix("__Host-") {
        check(cookie.isSecure && cookie.isHostOnly && cookie.path == "/", "__Host- rules: \(what)")
    }

    // Round trip.
    var casing = caseBytes
    var rendered = "\(cookie.name)=\(cookie.value); \(mixCase("path", &casing))=\(cookie.path)"
    if !cookie.isHostOnly { rendered += "; \(mixCase("domain", &casing))=\(cookie.domain)" }
    if let expiry = cookie.expiresAt { rendered += "; \(mixCase("expires", &casing))=\(UTCCalendar.imfFixdate(expiry))" }
    if cookie.isSecure { rendered += "; \(mixCase("secure", &casing))" }
    if cookie.isHTTPOnly { rendered += "; \(mixCase("httponly", &casing))" }
    if let sameSite = cookie.sameSite { rendered += "; \(mixCase("samesite", &casing))=\(mixCase(sameSite.rawValue, &casing))" }
    let again = SetCookieParser.parse(rendered, from: url, now: now)
    check(again == .store(cookie), "\(what); rendered as \(rendered.debugDescription) it parses to \(again)")
    return 0
}

/// The executable's entry point (SwiftPM aliases `main` to it): libFuzzer's driver.
@_cdecl("setcookie_main")
public func setcookieMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1)!, size) }
}
