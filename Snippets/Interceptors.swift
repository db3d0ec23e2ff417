// Interceptors and retries.
// snippet.hide
import Curlew
import Foundation
import HTTPTypes

let url = URL(string: "https://api.example.com/users")!

// snippet.show
// snippet.closures
let tagging = Interceptor.adapter { request, _ in
    var request = request
    request.headerFields[HTTPField.Name("X-Client")!] = "batch-importer"
    return request
}
let checking = Interceptor.response { response, _ in
    guard response.head.headerFields[HTTPField.Name("X-Maintenance")!] == nil else {
        throw CurlewError(.validationFailed, "the API is in maintenance", url: response.url)
    }
    return response
}
let session = Session(interceptors: [tagging, checking, RetryPolicy.default])
// snippet.end

// snippet.clarify
enum MyAppError: Error { case offline, server(code: Int, message: String) }

struct ClarifyErrors: RequestInterceptor, ResponseInterceptor {
    struct APIError: Decodable { let code: Int; let message: String }

    func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data> {
        guard response.status.code >= 400,
              let body = try? JSONDecoder().decode(APIError.self, from: response.value) else { return response }
        throw MyAppError.server(code: body.code, message: body.message)
    }

    func intercept(_ failure: FailedAttempt, for session: Session) async throws {
        if failure.error.kind == .connectionRefused { throw MyAppError.offline }
    }
}

let api = Session(interceptors: [ClarifyErrors(), RetryPolicy.default])
if case .failure(let error) = await api.request(url).dataResult(),
   let appError = error.underlying as? MyAppError { print(appError) }
// snippet.end

// snippet.retry
var policy = RetryPolicy(retryLimit: 5, backoffScale: .milliseconds(200), maximumDelay: .seconds(10),
                         deadline: .seconds(30))              // no retry starts after 30 s
policy.retryableStatusCodes.insert(409)
let resilient = Session(interceptors: [policy])
// snippet.end

// snippet.hide
await resilient.shutdown()
await api.shutdown()
await session.shutdown()
