import Foundation

/// Gregorian calendar arithmetic in UTC through Foundation's `Calendar`, as an oracle that
/// shares no code with Curlew's date parser.
public enum UTCCalendar {
    public struct Fields: Equatable, Sendable {
        public var year, month, day, hour, minute, second: Int
        public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
            (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
        }
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The date, or nil when no such date exists (Foundation would roll 30 February over;
    /// that counts as not existing).
    public static func date(_ fields: Fields) -> Date? {
        let components = DateComponents(
            year: fields.year, month: fields.month, day: fields.day, hour: fields.hour, minute: fields.minute,
            second: fields.second)
        guard let date = calendar.date(from: components), self.fields(of: date) == fields else { return nil }
        return date
    }

    public static func fields(of date: Date) -> Fields {
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return Fields(year: c.year!, month: c.month!, day: c.day!, hour: c.hour!, minute: c.minute!, second: c.second!)
    }

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` (the weekday is not checked by parsers; "Sun" always).
    public static func imfFixdate(_ date: Date) -> String {
        let f = fields(of: date)
        return "Sun, \(two(f.day)) \(months[f.month - 1]) \(f.year) \(two(f.hour)):\(two(f.minute)):\(two(f.second)) GMT"
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`: two-digit years, so only for 1970...2069.
    public static func rfc850(_ date: Date) -> String {
        let f = fields(of: date)
        return "Sunday, \(two(f.day))-\(months[f.month - 1])-\(two(f.year % 100)) \(two(f.hour)):\(two(f.minute)):\(two(f.second)) GMT"
    }

    /// `Sun Nov  6 08:49:37 1994`.
    public static func asctime(_ date: Date) -> String {
        let f = fields(of: date)
        let day = f.day < 10 ? " \(f.day)" : "\(f.day)"
        return "Sun \(months[f.month - 1]) \(day) \(two(f.hour)):\(two(f.minute)):\(two(f.second)) \(f.year)"
    }
}
