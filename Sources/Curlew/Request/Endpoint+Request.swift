import Foundation
import HTTPTypes

/// `Encodable` parameters kept with their encoder until the request is made.
struct EncodableParameters: Sendable {
    let encode: @Sendable (inout OutgoingRequest) throws -> Void

    init<P: Encodable & Sendable>(_ parameters: P, encoder: some ParameterEncoder) {
        encode = { request in try encoder.encode(parameters, into: &request) }
    }
}

extension Endpoint {
    /// The checked request this endpoint describes.
    func outgoingRequest() throws(CurlewError) -> OutgoingRequest {
        try outgoingRequest(method: method, fill: nil)
    }

    /// The checked request for an upload whose body `fill` writes (the data, file, stream or
    /// multipart form being uploaded), with POST unless the endpoint names a method.
    ///
    /// The uploaded body is the only body: an endpoint with a body of its own, or parameters
    /// that write one, fails with ``CurlewError/Kind/invalidRequest`` rather than lose either.
    func uploadRequest(_ fill: @escaping (inout OutgoingRequest) throws -> Void) throws(CurlewError) -> OutgoingRequest {
        try outgoingRequest(method: explicitMethod ?? .post, fill: fill)
    }

    private func outgoingRequest(
        method: HTTPRequest.Method, fill: ((inout OutgoingRequest) throws -> Void)?
    ) throws(CurlewError) -> OutgoingRequest {
        if let invalidInput { throw invalidInput }
        var fields = headerFields
        if !cookies.isEmpty {
            fields.append(HTTPField(name: .cookie, value: cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")))
        }
        return try RequestBuilder.build(url: url, method: method, headers: RequestHeaders(fields), options: options) { request in
            request.body = body
            try parameters.encode(into: &request)
            for encoding in encodings { try encoding.encode(&request) }
            if let fill {
                guard request.body == nil else {
                    throw CurlewError(
                        .invalidRequest,
                        "an upload sends its own body; the endpoint's body (or its body parameters) would be lost",
                        url: request.url)
                }
                try fill(&request)
            }
        }.get()
    }

    /// `path` appended to `base` with exactly one `/` between; the base's query first, then
    /// the path's. A path that is an absolute URL (`scheme://…`) is returned as it is.
    static func join(base: String, path: String) -> String {
        if isAbsoluteURL(path) { return path }
        let (basePart, baseQuery) = split(base)
        let (pathPart, pathQuery) = split(path)
        var joined = basePart
        if !pathPart.isEmpty {
            let trimmedBase = joined.hasSuffix("/") ? String(joined.dropLast()) : joined
            joined = trimmedBase + (pathPart.hasPrefix("/") ? pathPart : "/" + pathPart)
        }
        let queries = [baseQuery, pathQuery].compactMap { $0 }.filter { !$0.isEmpty }
        return queries.isEmpty ? joined : joined + "?" + queries.joined(separator: "&")
    }

    /// The text before `?` (without any fragment) and the query, if any.
    private static func split(_ text: Substring) -> (String, String?) {
        let withoutFragment = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let mark = withoutFragment.firstIndex(of: "?") else { return (String(withoutFragment), nil) }
        return (String(withoutFragment[..<mark]), String(withoutFragment[withoutFragment.index(after: mark)...]))
    }

    private static func split(_ text: String) -> (String, String?) { split(text[...]) }

    /// Whether `text` starts with `scheme://` (RFC 3986 scheme characters).
    private static func isAbsoluteURL(_ text: String) -> Bool {
        guard let range = text.range(of: "://") else { return false }
        let scheme = text[..<range.lowerBound]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return scheme.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar))
        }
    }
}

extension RequestOptions {
    /// `self` with every field it leaves nil taken from `base` (timeouts field by field).
    func merged(over base: RequestOptions) -> RequestOptions {
        var merged = RequestOptions()
        merged.timeouts = timeouts.merged(over: base.timeouts)
        merged.redirectPolicy = redirectPolicy ?? base.redirectPolicy
        merged.maximumBodySize = maximumBodySize ?? base.maximumBodySize
        merged.httpVersion = httpVersion ?? base.httpVersion
        merged.proxy = proxy ?? base.proxy
        merged.httpCredential = httpCredential ?? base.httpCredential
        merged.unixSocketPath = unixSocketPath ?? base.unixSocketPath
        merged.expectContinue = expectContinue ?? base.expectContinue
        merged.waitsForConnectivity = waitsForConnectivity ?? base.waitsForConnectivity
        merged.cachePolicy = cachePolicy ?? base.cachePolicy
        merged.responseCacher = responseCacher ?? base.responseCacher
        merged.cookieStorage = cookieStorage ?? base.cookieStorage
        merged.connectTo = connectTo ?? base.connectTo
        merged.ipVersion = ipVersion ?? base.ipVersion
        merged.wireTrace = wireTrace ?? base.wireTrace
        merged.http2StreamWeight = http2StreamWeight ?? base.http2StreamWeight
        return merged
    }
}
