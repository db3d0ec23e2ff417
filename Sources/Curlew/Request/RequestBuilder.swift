import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes

/// Turns the arguments of `Session.request` into a checked ``OutgoingRequest``, keeping the
/// error for when the request is consumed (making a request never throws).
enum RequestBuilder {
    static func build(
        url: some URLConvertible, method: HTTPRequest.Method, headers: RequestHeaders, body: RequestBody?,
        options: RequestOptions
    ) -> Result<OutgoingRequest, CurlewError> {
        do throws(CurlewError) {
            if let text = url as? String, let request = try plainRequest(
                text, method: method, headers: headers, body: body, options: options)
            {
                return .success(request)
            }
            let target = try url.asURL()
            let fields = try headers.fields(for: target)
            _ = try target.validatedForTransfer()
            return .success(OutgoingRequest(url: target, method: method, headerFields: fields, body: body, options: options))
        } catch {
            return .failure(error)
        }
    }

    /// The request for a URL given as a plain http or https text
    /// (``URLTextLayout/isPlainHTTPURL(_:)``), which keeps the text and parses no `URL`: every
    /// such text parses and passes ``Foundation/URL/validatedForTransfer()``, so the request is
    /// the one the general path builds. Nil for any other text.
    private static func plainRequest(
        _ text: String, method: HTTPRequest.Method, headers: RequestHeaders, body: RequestBody?, options: RequestOptions
    ) throws(CurlewError) -> OutgoingRequest? {
        var text = text
        guard text.withUTF8(URLTextLayout.isPlainHTTPURL) else { return nil }
        let fields = try headers.fields(for: URL(string: text))
        return OutgoingRequest(plainURLText: text, method: method, headerFields: fields, body: body, options: options)
    }

    /// A request whose body or query `encode` writes (parameters with an encoder, a form).
    static func build(
        url: some URLConvertible, method: HTTPRequest.Method, headers: RequestHeaders, options: RequestOptions,
        _ encode: (inout OutgoingRequest) throws -> Void
    ) -> Result<OutgoingRequest, CurlewError> {
        build(url: url, method: method, headers: headers, body: nil, options: options)
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

    /// The endpoint a router (or any convertible) describes; what it throws becomes the error
    /// the request fails with.
    static func endpoint(_ convertible: some EndpointConvertible) -> Result<Endpoint, CurlewError> {
        do {
            return .success(try convertible.asEndpoint())
        } catch let error as CurlewError {
            return .failure(error)
        } catch {
            return .failure(CurlewError(.invalidRequest, "\(type(of: convertible)) could not make its request: \(error)", underlying: error))
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
