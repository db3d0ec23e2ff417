import Foundation
import HTTPTypes

/// The freshness arithmetic of RFC 9111 §4.2, on plain values so that it is tested without a
/// network or a clock.
enum CacheFreshness {
    /// Statuses a cache may store and serve with heuristic freshness (RFC 9110 §15.1, without
    /// `206`, which this cache never stores).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Statuses this cache stores at all: the heuristically cacheable ones, and any other final
    /// status when the response gives an explicit lifetime (see ``isStorable``).
    static func isUnderstood(_ status: Int) -> Bool { (200..<600).contains(status) && status != 206 && status != 304 }

    /// The freshness lifetime in seconds (§4.2.1): `max-age`, else `Expires − Date`, else the
    /// heuristic 10 % of `Date − Last-Modified` for heuristically cacheable statuses; zero
    /// when nothing applies (the response is stale at once and needs revalidation).
    static func lifetime(status: Int, fields: HTTPFields, control: CacheControl, responseTime: Date) -> TimeInterval {
        if let maxAge = control.maxAge { return TimeInterval(maxAge) }
        let date = fields[.date].flatMap(CookieDateParser.parse) ?? responseTime
        if let expires = fields[.expires] {
            // An invalid Expires, such as "0", means already expired (§5.3).
            guard let expiry = CookieDateParser.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(date))
        }
        guard heuristicallyCacheable.contains(status),
            let lastModified = fields[.lastModified].flatMap(CookieDateParser.parse)
        else { return 0 }
        return max(0, date.timeIntervalSince(lastModified) / 10)
    }

    /// Whether the response carries an explicit lifetime or may get a heuristic one.
    static func hasFreshnessInformation(status: Int, fields: HTTPFields, control: CacheControl) -> Bool {
        control.maxAge != nil || fields[.expires] != nil || control.isPublic || heuristicallyCacheable.contains(status)
    }

    /// `corrected_initial_age` (§4.2.3): the age the response had when it arrived.
    static func initialAge(fields: HTTPFields, requestTime: Date, responseTime: Date) -> TimeInterval {
        let ageValue = fields[.age].flatMap { CacheControl.seconds($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let dateValue = fields[.date].flatMap(CookieDateParser.parse) ?? responseTime
        let apparentAge = max(0, responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        return max(apparentAge, TimeInterval(ageValue) + responseDelay)
    }

    /// `current_age` (§4.2.3): the initial age plus the time the entry has been resident.
    static func currentAge(initialAge: TimeInterval, responseTime: Date, now: Date) -> TimeInterval {
        initialAge + max(0, now.timeIntervalSince(responseTime))
    }
}
