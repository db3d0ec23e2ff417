import Foundation

/// The tolerant date parser of RFC 6265 §5.1.1, which reads every HTTP-date form
/// (IMF-fixdate, RFC 850 and asctime) and the many variants servers send in `Expires`.
/// Also used for `Retry-After`.
enum CookieDateParser {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date in `text`, in UTC, or nil when it is not a valid cookie date.
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(of: Array(text.utf8)) {
            if time == nil, let parsed = parseTime(token) {
                time = parsed
            } else if day == nil, let value = leadingNumber(token, digits: 1...2) {
                day = value
            } else if month == nil, let value = parseMonth(token) {
                month = value
            } else if year == nil, let value = leadingNumber(token, digits: 2...4) {
                year = value
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
            day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.hour * 3600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func tokens(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: isDelimiter)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `count` digits at the start, followed by the end or a non-digit.
    private static func leadingNumber(_ token: ArraySlice<UInt8>, digits: ClosedRange<Int>) -> Int? {
        let prefix = token.prefix(while: isDigit)
        guard digits.contains(prefix.count) else { return nil }
        return prefix.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `hh:mm:ss`, each field one or two digits, optionally followed by non-digits.
    private static func parseTime(_ token: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        var fields: [Int] = []
        var index = token.startIndex
        for position in 0..<3 {
            let start = index
            while index < token.endIndex, isDigit(token[index]), index - start < 2 { index += 1 }
            guard index > start else { return nil }
            fields.append(token[start..<index].reduce(0) { $0 * 10 + Int($1 - 0x30) })
            if position < 2 {
                guard index < token.endIndex, token[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        if index < token.endIndex, isDigit(token[index]) { return nil }
        return (fields[0], fields[1], fields[2])
    }

    private static func parseMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let name = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return months.firstIndex(of: name).map { $0 + 1 }
    }

    private static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date, in the proleptic Gregorian calendar.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
