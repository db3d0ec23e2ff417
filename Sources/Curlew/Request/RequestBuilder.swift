import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes

/// Turns the arguments of `Session.request` into a checked ``OutgoingRequest``, keeping the
/// error for when the request is consumed (making a request never throws).
enum RequestBuilder {
    static func build(
        url: some URLConvertible, method: HTTPRequest.Method, fields: HTTPFields, body: RequestBody?,
        options: RequestOptions
    ) -> Result<OutgoingRequest, CurlewError> {
        Result { () throws(CurlewError) in
            try OutgoingRequest(url: url.asURL(), method: method, headerFields: fields, body: body, options: options)
        }.flatMap(validate)
    }

    static func build(
        url: some URLConvertible, method: HTTPRequest.Method, headers: [String: String], body: RequestBody?,
        options: RequestOptions
    ) -> Result<OutgoingRequest, CurlewError> {
        Result { () throws(CurlewError) in
            let target = try url.asURL()
            var fields = HTTPFields()
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                fields.append(try HTTPField.validated(name: name, value: value, url: target))
            }
            return OutgoingRequest(url: target, method: method, headerFields: fields, body: body, options: options)
        }.flatMap(validate)
    }

    /// A request whose body or query `encode` writes (parameters with an encoder, a form).
    static func build(
        url: some URLConvertible, method: HTTPRequest.Method, fields: HTTPFields, options: RequestOptions,
        _ encode: (inout OutgoingRequest) throws -> Void
    ) -> Result<OutgoingRequest, CurlewError> {
        build(url: url, method: method, fields: fields, body: nil, options: options)
            .flatMap { base -> Result<OutgoingRequest, CurlewError> in
                var request = base
                do {
                    try encode(&request)
                } catch let error as CurlewError {
                    return .failure(error)
                } catch {
                    return .failure(CurlewError(.invalidRequest, "encoding the parameters failed: \(error)", url: base.url, underlying: error))
                }
                return validate(request)
            }
    }

    /// A request converted from Foundation's `URLRequest`.
    static func build(_ urlRequest: URLRequest) -> Result<OutgoingRequest, CurlewError> {
        Result { () throws(CurlewError) in try OutgoingRequest(urlRequest) }.flatMap(validate)
    }

    static func validate(_ request: OutgoingRequest) -> Result<OutgoingRequest, CurlewError> {
        Result { () throws(CurlewError) in
            _ = try request.url.validatedForTransfer()
            return request
        }
    }
}
