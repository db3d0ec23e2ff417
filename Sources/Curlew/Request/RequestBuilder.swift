import Foundation
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

    static func validate(_ request: OutgoingRequest) -> Result<OutgoingRequest, CurlewError> {
        Result { () throws(CurlewError) in
            _ = try request.url.validatedForTransfer()
            return request
        }
    }
}
