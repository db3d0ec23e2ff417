@_spi(Stubbing) import Curlew
import Foundation

/// A ``StubResponse`` as the events a transfer takes one by one, each with the pause before it.
struct StubPlan {
    private(set) var events: [TransportStubEvent] = []
    private(set) var delays: [Duration] = []

    init(_ response: StubResponse, isHead: Bool) {
        if let failure = response.failure, failure.afterBodyBytes == nil {
            append(.failure(failure.failure.transportFailure), after: response.delay)
            return
        }
        let total = response.chunks.reduce(0) { $0 + $1.data.count }
        append(.head(Self.head(response, bodyLength: total)), after: response.delay)
        var budget = response.failure?.afterBodyBytes ?? Int.max
        let sendsBody = !isHead && response.status != 204 && response.status != 304
        for chunk in response.chunks where sendsBody {
            guard budget > 0 else { break }
            let piece = chunk.data.prefix(budget)
            budget -= piece.count
            if !piece.isEmpty { append(.body(Data(piece)), after: chunk.delay) }
        }
        if let failure = response.failure {
            append(.failure(failure.failure.transportFailure), after: .zero)
        } else {
            append(.end, after: .zero)
        }
    }

    private mutating func append(_ event: TransportStubEvent, after delay: Duration) {
        events.append(event)
        delays.append(delay)
    }

    /// The status line, the fields (with a `Content-Length` unless the body is framed
    /// otherwise) and the blank line.
    private static func head(_ response: StubResponse, bodyLength: Int) -> Data {
        var text = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        var framed = false
        for header in response.headers {
            let name = header.name.lowercased()
            if name == "content-length" || name == "transfer-encoding" { framed = true }
            text += "\(header.name): \(header.value)\r\n"
        }
        if !framed, response.status >= 200, response.status != 204, response.status != 304 {
            text += "Content-Length: \(bodyLength)\r\n"
        }
        return Data((text + "\r\n").utf8)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status"
        }
    }
}
