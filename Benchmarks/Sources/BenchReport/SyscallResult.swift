/// System calls per request of one client in small-c1, counted by `strace -f -c`.
struct SyscallResult: Codable, Sendable {
    var client: String
    /// Requests in the long run minus requests in the short run.
    var requests: Int
    /// (calls of the long run − calls of the short run) / requests, every system call.
    var syscallsPerRequest: Double?
    /// The same per system call, by name.
    var perRequest: [String: Double]?
    var note: String?

    enum CodingKeys: String, CodingKey {
        case client, requests, note
        case syscallsPerRequest = "syscalls_per_request"
        case perRequest = "per_request"
    }

    /// Calls per request of the named system calls together (nil when none was counted).
    func calls(_ names: [String]) -> Double? {
        guard let perRequest else { return nil }
        return names.reduce(0) { $0 + (perRequest[$1] ?? 0) }
    }
}
