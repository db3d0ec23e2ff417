/// Instructions per request of one client under `valgrind --tool=callgrind`.
struct CallgrindResult: Codable, Sendable {
    var client: String
    /// Requests in the long run minus requests in the short run.
    var requests: Int
    /// (instructions of the long run − instructions of the short run) / requests.
    var instructionsPerRequest: Double?
    var note: String?

    enum CodingKeys: String, CodingKey {
        case client, requests, note
        case instructionsPerRequest = "instructions_per_request"
    }
}
