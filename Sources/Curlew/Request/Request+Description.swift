import Foundation
import HTTPTypes

/// `print(request)` and `debugPrint(request)`, as Alamofire users know them.
///
/// Both read the request's state at the moment they are called and never start it. Secrets
/// are redacted as everywhere Curlew prints (see ``Request/cURLDescription(revealingSecrets:)``).
extension Request: CustomStringConvertible, CustomDebugStringConvertible {
    /// The method and URL, with the status once there is one: `GET https://host/path`, then
    /// `GET https://host/path (200)` when it finished (a streamed body: once its head arrived).
    ///
    /// A failed request names the error's kind, after the status if a response came:
    /// `GET https://host/path (failed: connectionRefused)`,
    /// `GET https://host/path (404, failed: unacceptableStatus)`. A request that could not be
    /// built says so: `invalid request (invalidURL: …)`. A password in the URL shows as `***`.
    public var description: String {
        let (result, adapted, transfer) = core.printState()
        let request: OutgoingRequest
        switch (result, adapted) {
        case (.success(let completed)?, _): request = completed.request
        case (_, let adapted?): request = adapted
        case (_, nil):
            switch core.effectiveBuild {
            case .success(let built): request = built
            case .failure(let error): return "invalid request (\(error.kind): \(error.message))"
            }
        }
        let line = "\(request.method.rawValue) \(Redaction.string(request.url))"
        switch result {
        case .success(let completed)?:
            return line + " (\(completed.outcome.responseHead.statusCode))"
        case .failure(let error)?:
            let status = error.responseHead.map { "\($0.status.code), " } ?? ""
            return line + " (\(status)failed: \(error.kind))"
        case nil:
            // Only a stream shows a head before the end: a collected run may still retry.
            guard adapted != nil, let head = transfer?.state.withLock({ $0.head }) else { return line }
            return line + " (\(head.statusCode))"
        }
    }

    /// ``cURLDescription(revealingSecrets:)``: a `curl` command that repeats the request (as
    /// the adapters made it once it has run), secrets redacted.
    public var debugDescription: String {
        cURLDescription()
    }
}
