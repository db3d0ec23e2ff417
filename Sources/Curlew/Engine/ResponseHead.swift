import HTTPTypes
import Synchronization

/// A final response head: its status code at once, its `HTTPResponse` made on first access.
///
/// The curl thread keeps a head's field lines as the bytes libcurl gave (see
/// ``RawResponseHead``); most requests read only the status code, so the `HTTPFields` — a
/// validated name, a legalized value and a String per field — are made only when someone reads
/// ``response``, on whichever thread that is, once.
final class ResponseHead: Sendable {
    /// The status code, known without building the head.
    let statusCode: Int
    /// The raw head; nil when this holds a head that was built already.
    private let raw: RawResponseHead?
    /// The head, once built; the lock makes the first reader build it and every other one wait.
    private let built: Mutex<HTTPResponse?>

    /// Holds a head that already exists (from an interceptor, the cache, a test).
    init(_ response: HTTPResponse) {
        statusCode = response.status.code
        raw = nil
        built = Mutex(response)
    }

    /// Holds a head parsed from libcurl's bytes, built on first access.
    init(raw: RawResponseHead) {
        statusCode = raw.statusCode
        self.raw = raw
        built = Mutex(nil)
    }

    /// The head as swift-http-types models it; built the first time it is read.
    var response: HTTPResponse {
        built.withLock { built in
            if let built { return built }
            // `raw` is nil only when `built` was set at init.
            let response = raw?.makeResponse() ?? HTTPResponse(status: HTTPResponse.Status(code: statusCode))
            built = response
            return response
        }
    }

    /// Whether the head was built (for tests: the plain path must build nothing).
    var isBuilt: Bool { built.withLock { $0 != nil } }

    /// `response.headerFields[.contentType]`, found without building the head when it has at
    /// most one such field.
    var contentType: String? {
        if let raw, let lookup = raw.contentType { return lookup }
        return response.headerFields[.contentType]
    }
}
