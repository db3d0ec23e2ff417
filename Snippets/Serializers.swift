// Serializers: the built-in ones, your own, and typed API errors.
// snippet.hide
import Curlew
import Foundation

struct User: Decodable, Sendable { let id: Int; let name: String }
let url = URL(string: "https://api.example.com/users/42")!
let session = Session()
let request = session.request(url)

// snippet.show
// snippet.builtin
let text  = try await request.string()                                     // charset from Content-Type
let user  = try await request.decode(User.self)                            // JSONDecoder
let json  = try await request.serialized(by: .json).value                  // an untyped JSON value
print(json["user"]["name"].string ?? "")
let users = try await request.serialized(by: .collection(of: User.self, keyPath: "data.items")).value
let lossy = try await request.serialized(by: .lossyCollection(of: User.self)).value
print(lossy.failures)                                                      // which elements failed, and why
let clean = try await request.serialized(by: .decodable(User.self).preprocessed(by: .xssi)).value
// snippet.end

// snippet.custom
struct LineCount: ResponseSerializer {
    func serialize(_ response: Response<Data>) throws -> Int {
        response.value.split(separator: UInt8(ascii: "\n")).count
    }
}
let lines = try await session.request(url).serialized(by: LineCount()).value
// snippet.end

// snippet.apiError
struct APIProblem: Decodable, Error { let code: String; let message: String }
do { _ = try await session.request(url).validate(errorType: APIProblem.self).data() }
catch { print(error.status?.code ?? 0, error.apiError(as: APIProblem.self)?.message ?? "") }
// snippet.end

// snippet.hide
print(text, user, users, clean, lines)
await session.shutdown()
