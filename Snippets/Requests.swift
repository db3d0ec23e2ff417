// Requests and results: building a request, options, parameters, endpoints and errors.
// snippet.hide
import Curlew
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct User: Codable, Sendable { let id: Int; let name: String }
struct NewUser: Encodable, Sendable { let name: String }
let url = URL(string: "https://api.example.com/users")!
let session = Session()

// snippet.show
// snippet.build
let created = try await session.request(
    "https://api.example.com/users", method: .post,
    headers: ["Content-Type": "application/json"],          // validated: CR/LF is an error
    body: .data(try JSONEncoder().encode(NewUser(name: "Ann")))
).validate(statusCode: 200..<300).decode(User.self)
// snippet.end

// snippet.options
var options = RequestOptions()
options.timeouts = Timeouts(connect: .seconds(5), total: .seconds(30), idle: .seconds(10))
options.redirectPolicy = .follow(maximum: 3)
options.maximumBodySize = 10 << 20
let limited = session.request(url, options: options)
// snippet.end

// snippet.parameters
let search = session.request(url, parameters: ["q": "curl & swift", "page": 2])   // the query
let create = session.request(url, method: .post, parameters: NewUser(name: "Ann"), encoder: .json)
// snippet.end

// snippet.results
let request = session.request(url)          // one request is one transfer
let response = try await request.response   // head, body, metrics, redirects
let data = try await request.data()         // the same transfer's body
print(response.status, response.attempts, data.count)
// snippet.end

// snippet.routes
let api = Endpoint("https://api.example.com/v1")
    .with(header: "Accept", value: "application/json")
    .with(timeouts: Timeouts(connect: .seconds(5)))

let users = Endpoint("users", base: api)            // https://api.example.com/v1/users
    .with(parameters: ["page": 2], encoding: .query)
let page = try await session.request(users).validate().decode([User].self)
// snippet.end

// snippet.errors
do {
    _ = try await session.request(url).validate().data()
} catch {                                           // error: CurlewError (typed throws)
    if error.kind == .unacceptableStatus { print(error.status?.code ?? 0, error.responseBodyText ?? "") }
}
// snippet.end

// snippet.hide
print(created, limited, search, create, page)
await session.shutdown()
