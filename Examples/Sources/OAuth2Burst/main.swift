// OAuth2Burst: 50 requests hit an API at once with an access token the server no longer
// accepts. All 50 get a 401, exactly one token refresh happens, and all 50 are retried with
// the new token.
//
//     swift run OAuth2Burst

import Curlew
import Foundation

let server = TokenServer()
let port = try await server.start()
let base = "http://127.0.0.1:\(port)"

// What an app would have saved after its last login: the server has since expired the
// access token, and the expiry is unknown to the client, so only the 401s reveal it.
let saved = OAuth2Credential(accessToken: "expired-token", refreshToken: "refresh-1", expiresAt: nil)

let auth = OAuth2Authenticator(
    credential: saved,
    tokenURL: URL(string: "\(base)/token")!,
    clientID: "burst-example",
    scope: .hosts(["127.0.0.1"]),
    onRefresh: { credential in print("onRefresh: stored \(credential)") })

let session = Session(interceptors: [auth, RetryPolicy.default])

let results = await withTaskGroup(of: Result<Int, CurlewError>.self) { group in
    for index in 1...50 {
        group.addTask {
            do throws(CurlewError) {
                let response = try await session.request("\(base)/api/items/\(index)").validate().response
                return .success(response.attempts)
            } catch {
                return .failure(error)
            }
        }
    }
    var collected: [Result<Int, CurlewError>] = []
    for await result in group { collected.append(result) }
    return collected
}

let attempts = results.compactMap { try? $0.get() }
let failures = results.count - attempts.count
print("requests: \(results.count), succeeded: \(attempts.count), failed: \(failures)")
print("attempts per request: \(Dictionary(grouping: attempts, by: { $0 }).mapValues(\.count))")
print("token endpoint calls: \(server.refreshCalls)")
print("authenticator refreshes: \(await auth.refreshCount), credential version: \(await auth.credentialVersion)")

await session.shutdown()
await server.stop()
if failures > 0 || server.refreshCalls != 1 { exit(1) }
