import Foundation

/// HAR's dates: ISO 8601 (`2009-07-24T19:20:30.450+01:00`), written in UTC with milliseconds,
/// read with or without fractional seconds.
enum HARDate {
    static func string(from date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func date(from text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
