// Fuzz target `headerfield`: HTTPField.validated (Sources/Curlew/Request/OutgoingRequest.swift)
// and the entry points that use it: RequestBuilder (Session.request with `headers:`) and
// OutgoingRequest(URLRequest); then the line handed to libcurl (curlHeaderLine).
//
// Input: up to three (name, value) pairs, each from an alphabet heavy in CR, LF, NUL,
// whitespace, separators and non-ASCII text, or raw bytes.
//
// Properties:
// - A field is accepted exactly when the name is a non-empty RFC 9110 token and the value is
//   visible ASCII, obs-text, and inner spaces and tabs only (no leading or trailing blank);
//   in particular an accepted value never holds CR, LF or NUL. A rejection is invalidHeader.
// - An accepted field keeps the value byte for byte (nothing is silently replaced) and the
//   name up to ASCII case.
// - RequestBuilder fails with invalidHeader exactly when one of the pairs is rejected;
//   OutgoingRequest(URLRequest) too, for the pairs URLRequest keeps as they are.
// - The libcurl header line is `Name: value` (or `Name;` for an empty value), holds no CR,
//   LF or NUL, and splits back into the same name and value.
@testable import Curlew
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FuzzSupport
import HTTPTypes

let alphabet = [
    "a", "X", "-", "0", " ", "\t", "\r", "\n", "\r\n", "\u{0}", ":", ";", "\"", "(", "é", "\u{7F}", "\u{1}", "~", "!",
    "\u{85}", "\u{2028}", "😀",
]

func validName(_ name: String) -> Bool { !name.isEmpty && name.utf8.allSatisfy(isTchar) }

func validValue(_ value: String) -> Bool {
    let bytes = Array(value.utf8)
    if let first = bytes.first, first == 0x20 || first == 0x09 { return false }
    if let last = bytes.last, last == 0x20 || last == 0x09 { return false }
    return bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || (0x21...0x7E).contains($0) || $0 >= 0x80 }
}

let url = URL(string: "https://example.com/path")!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    var pairs: [(String, String)] = []
    for _ in 0..<(1 + Int(input.byte() % 3)) {
        let name = input.bool() ? input.string(upTo: 6, from: alphabet) : input.string(upTo: 8)
        let value = input.bool() ? input.string(upTo: 8, from: alphabet) : input.string(upTo: 12)
        pairs.append((name, value))
    }

    var allValid = true
    for (name, value) in pairs {
        let valid = validName(name) && validValue(value)
        allValid = allValid && valid
        do {
            let field = try HTTPField.validated(name: name, value: value, url: url)
            check(valid, "accepted \(name.debugDescription): \(value.debugDescription)")
            check(!field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "CR, LF or NUL accepted")
            check(Array(field.value.utf8) == Array(value.utf8), "value changed: \(field.value.debugDescription)")
            check(field.name.canonicalName == name.lowercased() && field.name.rawName == name, "name changed: \(field.name)")
            let line = TransferContext.curlHeaderLine(field)
            check(!line.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "curl line \(line.debugDescription)")
            if value.isEmpty {
                check(line == name + ";", "curl line \(line.debugDescription)")
            } else {
                check(line == name + ": " + value, "curl line \(line.debugDescription)")
                let colon = line.utf8.firstIndex(of: UInt8(ascii: ":"))!
                check(String(line[..<colon]) == name, "curl line splits at the wrong colon")
            }
        } catch {
            check(!valid, "rejected \(name.debugDescription): \(value.debugDescription): \(error)")
            check(error.kind == .invalidHeader, "rejected with \(error)")
        }
    }

    // Session.request(_:method:headers:): a dictionary, so a later duplicate name replaces.
    var headers: [String: String] = [:]
    for (name, value) in pairs { headers[name] = value }
    let dictionaryValid = headers.allSatisfy { validName($0.key) && validValue($0.value) }
    switch RequestBuilder.build(url: url, method: .get, headers: headers, body: nil, options: RequestOptions()) {
    case .success(let request):
        check(dictionaryValid, "RequestBuilder accepted \(headers)")
        for field in request.headerFields {
            check(!field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "RequestBuilder kept CR, LF or NUL")
        }
    case .failure(let error):
        check(!dictionaryValid && error.kind == .invalidHeader, "RequestBuilder rejected \(headers): \(error)")
    }

    // OutgoingRequest(URLRequest), for what URLRequest keeps unchanged.
    var urlRequest = URLRequest(url: url)
    for (name, value) in pairs { urlRequest.setValue(value, forHTTPHeaderField: name) }
    let kept = urlRequest.allHTTPHeaderFields ?? [:]
    let keptValid = kept.allSatisfy { validName($0.key) && validValue($0.value) }
    do {
        let request = try OutgoingRequest(urlRequest)
        check(keptValid, "OutgoingRequest(URLRequest) accepted \(kept)")
        for field in request.headerFields {
            let bytes = Array(field.value.utf8)
            check(!bytes.contains(0x0D) && !bytes.contains(0x0A) && !bytes.contains(0), "URLRequest path kept CR, LF or NUL")
        }
    } catch {
        check(!keptValid && error.kind == .invalidHeader, "OutgoingRequest(URLRequest) rejected \(kept): \(error)")
    }
    return 0
}

/// The executable's entry point (SwiftPM aliases `main` to it): libFuzzer's driver.
@_cdecl("headerfield_main")
public func headerfieldMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1)!, size) }
}
