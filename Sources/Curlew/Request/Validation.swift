import Foundation
import HTTPTypes

/// A check of a response before it is serialized. `body` is nil for streamed responses,
/// which are validated as soon as the head arrives.
public typealias ResponseValidation = @Sendable (_ request: OutgoingRequest, _ head: HTTPResponse, _ body: Data?) throws -> Void

enum Validators {
    /// What `validate()` and the session's default validation check, made once. Without an
    /// `Accept` header (or with an empty one) any `Content-Type` passes.
    static let standard: [ResponseValidation] = [
        statusCode(200..<300),
        contentType { request in
            let types = acceptedTypes(request)
            return types.isEmpty ? nil : types
        },
    ]

    static func statusCode<S: Sequence<Int> & Sendable>(_ acceptable: S) -> ResponseValidation {
        { request, head, body in
            guard acceptable.contains(head.status.code) else {
                throw CurlewError(
                    .unacceptableStatus, "HTTP status \(head.status.code) \(head.status.reasonPhrase) is not acceptable",
                    url: request.url, responseHead: head, responseBody: body)
            }
        }
    }

    /// Accepts the response when its `Content-Type` matches one of `acceptable` (which may
    /// use `*` wildcards); `nil` accepts anything. A response without a body (an empty one,
    /// 204, 205, or an answer to HEAD) needs no Content-Type, so an empty list accepts exactly
    /// the responses without a body. A failure lists the acceptable types sorted, in its message
    /// and in ``CurlewError/acceptableContentTypes``.
    static func contentType(_ acceptable: @escaping @Sendable (OutgoingRequest) -> [String]?) -> ResponseValidation {
        { request, head, body in
            guard let accepted = acceptable(request)?.sorted() else { return }
            guard let contentType = head.headerFields[.contentType] else {
                if hasNoBody(request, head, body) { return }
                throw CurlewError(
                    .unacceptableContentType, "the response has no Content-Type; expected \(describe(accepted))",
                    url: request.url, responseHead: head, responseBody: body
                ).with(acceptableContentTypes: accepted)
            }
            let actual = MediaType(contentType)
            guard accepted.contains(where: { MediaType($0).matches(actual) }) else {
                if accepted.isEmpty, hasNoBody(request, head, body) { return }
                throw CurlewError(
                    .unacceptableContentType, "Content-Type '\(contentType)' is not acceptable; expected \(describe(accepted))",
                    url: request.url, responseHead: head, responseBody: body
                ).with(acceptableContentTypes: accepted)
            }
        }
    }

    /// Whether the response carries no body: an empty collected one, `Content-Length: 0` on a
    /// streamed one, status 204 or 205, or an answer to HEAD.
    private static func hasNoBody(_ request: OutgoingRequest, _ head: HTTPResponse, _ body: Data?) -> Bool {
        if head.status.code == 204 || head.status.code == 205 || request.method == .head { return true }
        if let body { return body.isEmpty }
        return head.headerFields[.contentLength] == "0"
    }

    /// "one of a, b" for the sorted acceptable types, or "no body" for none.
    private static func describe(_ accepted: [String]) -> String {
        accepted.isEmpty ? "no body (no content type is acceptable)" : "one of " + accepted.joined(separator: ", ")
    }

    /// The media types of the request's `Accept` header, `*/*` meaning anything.
    static func acceptedTypes(_ request: OutgoingRequest) -> [String] {
        guard let accept = request.headerFields[values: .accept].joined(separator: ",").nilIfEmpty else { return [] }
        return accept.split(separator: ",").map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }
}

/// A media type such as `application/json`, compared without parameters.
struct MediaType {
    let type: String
    let subtype: String

    init(_ text: String) {
        let bare = text.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let parts = bare.split(separator: "/", maxSplits: 1)
        type = parts.first.map(String.init) ?? ""
        subtype = parts.count > 1 ? String(parts[1]) : ""
    }

    func matches(_ other: MediaType) -> Bool {
        (type == "*" || type == other.type) && (subtype == "*" || subtype == other.subtype)
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
