import Foundation
import HTTPTypes

/// Validation: the checks a request asked for, and the session's default validation.
extension RequestCore {
    func addValidation(_ validation: @escaping ResponseValidation) {
        state.withLock { $0.validations.append(.custom(validation)) }
    }

    /// What `validate()` checks: status 200..<300 and, when the request has an `Accept`
    /// header, a matching `Content-Type`.
    func addStandardValidations() {
        state.withLock { state in
            // The usual case, `validate()` alone, shares one array instead of allocating one.
            if state.validations.isEmpty {
                state.validations = ValidationStep.standardOnly
            } else {
                state.validations.append(.standard)
            }
            state.hasStandardValidation = true
        }
    }

    /// Exempts the request from ``SessionConfiguration/usesDefaultValidation``.
    func skipDefaultValidation() {
        state.withLock { $0.skipsDefaultValidation = true }
    }

    /// The checks of one pipeline run: the request's own, in the order asked, then — when the
    /// session validates by default, the request did not opt out and did not call `validate()`
    /// itself — the standard ones. They come last so that a more specific check (an error body
    /// decoded by `validate(errorType:)`, say) names the failure first.
    func validationsForRun() -> [ValidationStep] {
        let usesDefault = session.configuration.usesDefaultValidation
        return state.withLock { $0.validationsForRun(usesDefaultValidation: usesDefault) }
    }

    /// Runs `validations` on a collected outcome; a check that throws something other than a
    /// ``CurlewError`` fails with ``CurlewError/Kind/validationFailed``.
    func validate(_ outcome: TransferOutcome, with validations: [ValidationStep]) throws(CurlewError) {
        let body: Data? = if case .collect = mode { outcome.body } else { nil }
        try validate(outcome.responseHead, of: outcome.request, body: body, with: validations)
    }

    /// Runs `validations` on a response head and, for a collected body, the body (nil for a
    /// stream's head and for downloads); the same error rule as above.
    func validate(
        _ head: HTTPResponse, of request: OutgoingRequest, body: Data?, with validations: [ValidationStep]
    ) throws(CurlewError) {
        try validate(ResponseHead(head), of: request, body: body, with: validations)
    }

    /// The same, on a head built only if a check reads it.
    func validate(
        _ head: ResponseHead, of request: OutgoingRequest, body: Data?, with validations: [ValidationStep]
    ) throws(CurlewError) {
        for validation in validations {
            do {
                try validation.run(head, request: request, body: body)
            } catch let error as CurlewError {
                throw error
            } catch {
                throw CurlewError(
                    .validationFailed, "validation failed: \(error)", url: request.url, responseHead: head.response,
                    responseBody: body, underlying: error)
            }
        }
    }
}

extension RequestCore.State {
    /// See ``RequestCore/validationsForRun()``; for callers that hold the lock already.
    func validationsForRun(usesDefaultValidation: Bool) -> [ValidationStep] {
        guard usesDefaultValidation, !skipsDefaultValidation, !hasStandardValidation else { return validations }
        return validations.isEmpty ? ValidationStep.standardOnly : validations + [.standard]
    }
}
