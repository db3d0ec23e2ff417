// Migrating from URLSession and Alamofire.
// snippet.hide
import Curlew
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct User: Decodable, Sendable { let id: Int; let name: String }
let url = URL(string: "https://api.example.com/users/42")!
let session = Session()

// snippet.show
// snippet.urlsession
// URLSession.shared.data(from: url)
let data = try await session.request(url).data()
// URLSession.shared.data(for: urlRequest)
let fromFoundation = try await session.request(URLRequest(url: url)).validate().data()
// URLSession.shared.download(from: url)
let file = try await session.download(url).fileURL()
// URLSession.shared.bytes(from: url).lines
for try await line in session.request(url).lines { print(line) }
// snippet.end

// snippet.alamofire
// AF.request(url).validate().responseDecodable(of: User.self) { response in … }
let user = try await session.request(url).validate().decode(User.self)
// response.result
let result = await session.request(url).validate().decodeResult(User.self)
// debugPrint(request) / request.cURLDescription()
print(session.request(url).cURLDescription())
// snippet.end

// snippet.hide
print(data, fromFoundation, file, user, result)
await session.shutdown()
