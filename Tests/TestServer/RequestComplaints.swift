import Synchronization

/// What the test server found wrong with a request instead of quietly normalising it: several
/// lines of a field it reads one value of, a query, path or form that does not percent-decode,
/// a multipart body it cannot parse strictly. ``Router`` answers such a request with 400 and the
/// complaints, so the test that sent it sees the problem.
final class RequestComplaints: Sendable {
    private let list = Mutex<[String]>([])

    func add(_ complaint: String) {
        list.withLock { $0.append(complaint) }
    }

    var all: [String] { list.withLock { $0 } }
}
