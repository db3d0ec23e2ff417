// Fuzz target `cookiedate`: CookieDateParser (RFC 6265 §5.1.1, also used for Retry-After).
//
// Input: the date text.
//
// Properties:
// - The result equals that of a reference implementation of the §5.1.1 algorithm, written
//   from the RFC over bytes with Foundation's Calendar doing the date arithmetic (so the
//   parser's own day count is checked against Foundation's Gregorian calendar).
// - A parsed date is whole seconds between 1601-01-01 and 9999-12-31, and it survives a
//   round trip through IMF-fixdate, asctime and (for 1970...2069) RFC 850 renderings.
@testable import Curlew
import Foundation
import FuzzSupport

func isDelimiter(_ byte: UInt8) -> Bool {
    byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
        || (0x7B...0x7E).contains(byte)
}

func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

/// `minimum...maximum` digits, then the end or a non-digit; the number.
func digits(_ token: ArraySlice<UInt8>, _ minimum: Int, _ maximum: Int) -> (value: Int, rest: ArraySlice<UInt8>)? {
    var count = 0
    var value = 0
    var index = token.startIndex
    while index < token.endIndex, isDigit(token[index]), count < maximum {
        value = value * 10 + Int(token[index] - 0x30)
        count += 1
        index += 1
    }
    guard count >= minimum else { return nil }
    return (value, token[index...])
}

/// The §5.1.1 algorithm as the RFC words it.
func reference(_ text: [UInt8]) -> Date? {
    var time: (Int, Int, Int)?
    var day: Int?
    var month: Int?
    var year: Int?
    let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].map { Array($0.utf8) }
    for token in text.split(whereSeparator: isDelimiter) {
        // time = hms-time [ non-digit *OCTET ]; hms-time = 1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT
        if time == nil, let h = digits(token, 1, 2), h.rest.first == 0x3A,
            let m = digits(h.rest.dropFirst(), 1, 2), m.rest.first == 0x3A,
            let s = digits(m.rest.dropFirst(), 1, 2), s.rest.first.map(isDigit) != true
        {
            time = (h.value, m.value, s.value)
            continue
        }
        // day-of-month = 1*2DIGIT [ non-digit *OCTET ]
        if day == nil, let d = digits(token, 1, 2), d.rest.first.map(isDigit) != true {
            day = d.value
            continue
        }
        // month = ( "jan" / … / "dec" ) *OCTET, case-insensitively
        if month == nil, token.count >= 3 {
            let prefix = token.prefix(3).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            if let index = months.firstIndex(of: prefix) {
                month = index + 1
                continue
            }
        }
        // year = 2*4DIGIT [ non-digit *OCTET ]
        if year == nil, let y = digits(token, 2, 4), y.rest.first.map(isDigit) != true {
            year = y.value
            continue
        }
    }
    guard let time, let day, let month, var year else { return nil }
    if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
    guard (1...31).contains(day), year >= 1601, time.0 <= 23, time.1 <= 59, time.2 <= 59 else { return nil }
    return UTCCalendar.date(
        .init(year: year, month: month, day: day, hour: time.0, minute: time.1, second: time.2))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let text = String(decoding: bytes, as: UTF8.self)
    let parsed = CookieDateParser.parse(text)
    // The parser reads the UTF-8 of the String: invalid input reaches it with U+FFFD in place.
    let expected = reference(Array(text.utf8))
    check(parsed == expected, "\(text.debugDescription): \(String(describing: parsed)) != \(String(describing: expected))")
    guard let parsed else { return 0 }
    let seconds = parsed.timeIntervalSince1970
    check(seconds.rounded() == seconds, "not whole seconds: \(seconds)")
    check(seconds >= -11_644_473_600 && seconds <= 253_402_300_799, "out of range: \(parsed)")
    var renderings = [UTCCalendar.imfFixdate(parsed), UTCCalendar.asctime(parsed)]
    if (1970...2069).contains(UTCCalendar.fields(of: parsed).year) { renderings.append(UTCCalendar.rfc850(parsed)) }
    for rendering in renderings {
        check(CookieDateParser.parse(rendering) == parsed, "\(rendering) does not parse back to \(parsed)")
    }
    return 0
}

/// The executable's entry point (SwiftPM aliases `main` to it): libFuzzer's driver.
@_cdecl("cookiedate_main")
public func cookiedateMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1)!, size) }
}
