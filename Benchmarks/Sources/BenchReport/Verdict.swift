/// How a target fared over the rounds of a run (issue 16's rule).
///
/// A measured target needs at least ``minimumRounds`` rounds: it is met when the median of the
/// per-round values meets the bound and at most one round misses it, missed when the median
/// misses and at most one round meets it, and within noise otherwise. A deterministic count
/// (callgrind instructions, system calls) is judged by the count alone.
enum Verdict: String, Codable, Sendable {
    case met
    case missed
    case withinNoise = "within noise"
    case tooFewRounds = "too few rounds"
    case notMeasured = "not measured"

    /// The fewest rounds a measured target can be met (or missed) with.
    static let minimumRounds = 5

    /// Judges the per-round values of a measured target against `bound`.
    static func judge(_ values: [Double], bound: Double, atLeast: Bool) -> Verdict {
        guard let median = values.median else { return .notMeasured }
        guard values.count >= minimumRounds else { return .tooFewRounds }
        let meets = { (value: Double) in atLeast ? value >= bound : value <= bound }
        let meeting = values.filter(meets).count
        let missing = values.count - meeting
        if meets(median) { return missing <= 1 ? .met : .withinNoise }
        return meeting <= 1 ? .missed : .withinNoise
    }

    /// Judges a deterministic count against `bound`.
    static func byCount(_ value: Double?, bound: Double, atLeast: Bool) -> Verdict {
        guard let value else { return .notMeasured }
        return (atLeast ? value >= bound : value <= bound) ? .met : .missed
    }
}

extension Array where Element == Double {
    /// The median (the mean of the middle two for an even count), or nil when empty.
    var median: Double? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
