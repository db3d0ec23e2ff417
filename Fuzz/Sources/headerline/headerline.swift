// Fuzz target `headerline`: TransferContext.handleHeaderLine, and through it parseStatusLine,
// HeaderNames, the Content-Length / Content-Encoding / Location notes, the end of a head
// (1xx heads skipped, redirects decided, cookies stored, the content decoder chosen) and
// Transfer.deliverHead.
//
// Harness: one idle CurlLoop for the process (a Transfer needs one; nothing is ever submitted
// to it, so no network and no curl transfer), and per input a fresh Transfer (mode .collect,
// a cookie jar, the default redirect policy) for a dummy GET of http://example.com/a/b.
// The input, cut after each LF, is handed over line by line as libcurl's header callback
// would; byte 0 chooses whether a valid status line comes first.
//
// Properties, against a reference model of the head written from the documented grammar:
// - a status line ("HTTP/" … spaces, three digits 100-599, then the end or a space) is
//   accepted exactly when the model accepts it; a malformed one, or a blank line with no
//   status line before it, aborts (returns 0);
// - every other line is taken whole (returns its length), fields with a token name kept, others
//   dropped; 1xx heads other than 101 are dropped;
// - the final head has the model's status code, reason phrase (byte for byte when it is
//   legal) and fields: same names in order, values byte for byte when legal, and never a
//   CR, LF or NUL in any value; the transfer's state machine received exactly that head;
// - after the final head (or a followed redirect) every line is taken and ignored.
// Not covered: the body callbacks, and what libcurl does before the callback (it splits the
// lines; here the fuzzer does).
@testable import Curlew
import Foundation
import FuzzSupport
import HTTPTypes

nonisolated(unsafe) let loop = CurlLoop(configuration: SessionConfiguration())
let requestURL = URL(string: "http://example.com/a/b")!

func isLegalValue(_ bytes: [UInt8]) -> Bool {
    if let first = bytes.first, first == 0x20 || first == 0x09 { return false }
    if let last = bytes.last, last == 0x20 || last == 0x09 { return false }
    return bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || (0x21...0x7E).contains($0) || $0 >= 0x80 }
}

/// The model's status line: code and reason phrase bytes, or nil when malformed.
func statusLine(_ line: [UInt8]) -> (Int, [UInt8])? {
    guard let space = line.firstIndex(of: 0x20) else { return nil }
    var index = space
    while index < line.count, line[index] == 0x20 { index += 1 }
    guard index + 3 <= line.count, line[index..<index + 3].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    let code = line[index..<index + 3].reduce(0) { $0 * 10 + Int($1 - 0x30) }
    index += 3
    guard (100...599).contains(code), index == line.count || line[index] == 0x20 else { return nil }
    while index < line.count, line[index] == 0x20 { index += 1 }
    return (code, Array(line[index...]))
}

func noCRLFNUL(_ text: String) -> Bool { !text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    var stream = input.byte() & 1 == 1 ? Array("HTTP/1.1 200 OK\r\n".utf8) : []
    stream += input.rest()
    var lines: [[UInt8]] = []
    var lineStart = 0
    for (index, byte) in stream.enumerated() where byte == 0x0A {
        lines.append(Array(stream[lineStart...index]))
        lineStart = index + 1
    }
    if lineStart < stream.count { lines.append(Array(stream[lineStart...])) }

    var configuration = SessionConfiguration()
    configuration.cookieStorage = CookieJar()
    let settings = TransferSettings(configuration: configuration, options: RequestOptions(), reportsProgress: false)
    let transfer = Transfer(
        request: OutgoingRequest(url: requestURL), mode: .collect, settings: settings, events: nil, loop: loop)
    transfer.state.withLock { _ = $0.start() }  // running, as when the loop has taken it (it has not)
    let context = transfer.context

    // The model.
    var code = 0
    var reason: [UInt8] = []
    var fields: [(name: [UInt8], value: [UInt8])] = []
    var done = false  // a final head or a followed redirect: the rest is ignored

    for line in lines {
        let taken = line.withUnsafeBytes { context.handleHeaderLine($0, transfer: transfer) }
        if done {
            check(taken == line.count, "a line after the head was not taken")
            continue
        }
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        let content = Array(line[..<end])
        if content.isEmpty {
            guard code != 0 else {
                check(taken == 0 && context.failure?.kind == .malformedResponse, "a head without a status line was taken")
                return 0
            }
            if code < 200 && code != 101 {
                check(taken == line.count && context.finalHead == nil, "an informational head was not skipped")
                code = 0
                fields = []
                continue
            }
            done = true
            // Refused (an unknown content coding, a redirect that must fail): with a reason.
            if taken == 0 {
                check(context.failure != nil, "aborted without a reason")
                return 0
            }
            check(taken == line.count, "the blank line was not taken whole")
            guard let head = context.finalHead else {
                check(!context.redirects.isEmpty, "a head was taken but neither delivered nor followed")
                continue
            }
            check(head.status.code == code, "status \(head.status.code) != \(code)")
            check(noCRLFNUL(head.status.reasonPhrase), "reason phrase \(head.status.reasonPhrase.debugDescription)")
            if reason.allSatisfy({ $0 == 0x09 || $0 == 0x20 || (0x21...0x7E).contains($0) || $0 >= 0x80 }),
                String(validating: reason, as: UTF8.self) != nil
            {
                check(Array(head.status.reasonPhrase.utf8) == reason, "reason phrase \(head.status.reasonPhrase.debugDescription)")
            }
            let got = Array(head.headerFields)
            check(got.count == fields.count, "\(got.count) fields, expected \(fields.count): \(got)")
            for (field, want) in zip(got, fields) {
                check(Array(field.name.canonicalName.utf8) == want.name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, "name \(field.name)")
                let bytes = field.withUnsafeBytesOfValue { Array($0) }
                check(!bytes.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "value \(bytes)")
                if isLegalValue(want.value) {
                    check(bytes == want.value, "value \(bytes) != \(want.value)")
                }
            }
            check(transfer.state.withLock { $0.head } == head, "the state machine did not get the head")
            continue
        }
        if content.starts(with: Array("HTTP/".utf8)) {
            guard let (newCode, newReason) = statusLine(content) else {
                check(taken == 0 && context.failure?.kind == .malformedResponse, "malformed status line taken: \(content)")
                return 0
            }
            check(taken == line.count, "status line refused")
            code = newCode
            reason = newReason
            fields = []
            continue
        }
        check(taken == line.count, "header line refused")
        guard let colon = content.firstIndex(of: UInt8(ascii: ":")) else { continue }
        let name = Array(content[..<colon])
        guard !name.isEmpty, name.allSatisfy(isTchar) else { continue }
        var valueStart = colon + 1
        while valueStart < content.count, content[valueStart] == 0x20 || content[valueStart] == 0x09 { valueStart += 1 }
        fields.append((name, Array(content[valueStart...])))
    }
    return 0
}

/// The executable's entry point (SwiftPM aliases `main` to it): libFuzzer's driver.
@_cdecl("headerline_main")
public func headerlineMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1)!, size) }
}
