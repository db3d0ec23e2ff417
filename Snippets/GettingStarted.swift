// Getting started: a session, a typed value, a `Result`, and shutting down.
// snippet.hide
import Curlew
import Foundation

struct User: Decodable, Sendable { let id: Int; let name: String }
let url = URL(string: "https://api.example.com/users/42")!

// snippet.show
// snippet.session
let session = Session()                      // one per program; `Session.shared` also exists

let user = try await session.request("https://api.example.com/users/42")
    .validate()                              // 200..<300, and Content-Type against Accept
    .decode(User.self)
print(user.name)
// snippet.end

// snippet.result
switch await session.request(url).validate().dataResult() {     // Result<Data, CurlewError>
case .success(let body): print(body.count)
case .failure(let error): print(error.kind, error.status?.code ?? 0)
}
// snippet.end

// snippet.shutdown
await session.shutdown()                     // fails what is in flight and joins its thread

let body = try await withSession { session in      // shuts the session down afterwards
    try await session.request(url).data()
}
print(body.count)
// snippet.end
