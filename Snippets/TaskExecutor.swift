// Running a task on the session's thread.
// snippet.hide
import Curlew
import Foundation

struct User: Decodable, Sendable { let id: Int; let name: String }
let session = Session()
let ids = [1, 2, 3]

// snippet.show
// snippet.executor
let names = try await withTaskExecutorPreference(session.taskExecutor) {
    var names: [String] = []
    for id in ids {
        let user = try await session.request("https://api.example.com/users/\(id)").decode(User.self)
        names.append(user.name)
    }
    return names
}
// snippet.end

// snippet.hide
print(names)
await session.shutdown()
