import Foundation
import HTTPTypes

/// One check of a pipeline run: the standard checks of `validate()` (and the session's default
/// validation), or a check of the caller's.
///
/// The standard checks are told apart so that a response that passes them is seen to pass from
/// its status code and `Content-Type` alone, without building its head (see ``ResponseHead``).
enum ValidationStep: Sendable {
    /// ``Validators/standard``: status 200..<300 and, when the request has an `Accept`
    /// header, a matching `Content-Type`.
    case standard
    case custom(ResponseValidation)

    /// `[.standard]`, made once: the checks of most requests.
    static let standardOnly: [ValidationStep] = [.standard]

    /// Runs the check. The standard one runs ``Validators/standard`` on the built head unless
    /// the response plainly passes it, so that a failure reads exactly as theirs do.
    func run(_ head: ResponseHead, request: OutgoingRequest, body: Data?) throws {
        switch self {
        case .custom(let validation):
            try validation(request, head.response, body)
        case .standard:
            if Self.passesStandard(head, request: request) { return }
            let response = head.response
            for validation in Validators.standard { try validation(request, response, body) }
        }
    }

    /// Whether the response passes the standard checks, judged without building its head;
    /// false also when it cannot tell cheaply (then the checks themselves decide).
    static func passesStandard(_ head: ResponseHead, request: OutgoingRequest) -> Bool {
        guard (200..<300).contains(head.statusCode) else { return false }
        if request.headerFields[.accept] == nil { return true }
        let accepted = Validators.acceptedTypes(request)
        guard !accepted.isEmpty else { return true }
        guard let contentType = head.contentType else { return false }
        let actual = MediaType(contentType)
        return accepted.contains { MediaType($0).matches(actual) }
    }
}
