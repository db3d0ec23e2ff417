import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What it takes to continue a download that stopped part way: hand it to
/// ``Session/download(resumingWith:to:options:)``.
///
/// A download gives resume data when it is cancelled with
/// ``DownloadRequest/cancel(producingResumeData:)`` or fails on the way (the connection drops, a
/// timeout), as ``CurlewError/downloadResumeData`` — provided that some bytes arrived and the
/// response named a strong validator (a strong `ETag`, else a `Last-Modified` at least a minute
/// before its `Date`) without a content coding, since without one a server cannot promise that
/// the rest belongs to the same bytes. Otherwise there is none, and the partial file is removed
/// as for any failed download.
///
/// The partial file stays beside the destination (a hidden `.<name>.curlew-XXXXXX` file, mode
/// 0600, not in the temporary folder), so resume data saved as JSON still works after a
/// restart. The file then belongs to the caller: resume with it, or call
/// ``discardPartialFile()``.
///
/// Resume data is meant to be stored, so it holds no secret: no user name or password from the
/// URL, no `Authorization`, `Proxy-Authorization`, `Cookie` or `Set-Cookie`, no query value
/// named as a secret (`access_token` and the other names Curlew redacts), and nothing an
/// interceptor added — it keeps the request as the caller built it. Resuming, the session adds
/// its credentials again (its credential store, interceptors, cookie storage, proxy); a password
/// that was in the URL is given again with `authenticate(username:password:method:)` or the
/// credential store.
///
/// Stored resume data is also untrusted input: resuming checks it before anything is sent (a
/// GET, sizes that add up, a validator that may be sent) and, when the response arrives, that
/// its partial file is the one Curlew names for the destination, in the destination's folder,
/// and a regular file of this user's with no other link. Anything else fails with
/// ``CurlewError/Kind/invalidRequest`` or ``CurlewError/Kind/resumeFailed`` before a byte is
/// written.
public struct DownloadResumeData: Codable, Sendable, Equatable {
    /// One header field of the request as sent.
    public struct Header: Codable, Sendable, Equatable {
        /// The field's name.
        public let name: String
        /// The field's value.
        public let value: String
    }

    /// The URL of the download (after redirects: where the bytes came from), without user
    /// information or secret query values.
    public let url: URL
    /// The request method: `GET`, the one method a range is defined for.
    public let method: String
    /// The request's header fields as the caller built them, without credentials, cookies or
    /// range fields.
    public let headers: [Header]
    /// The response's strong `ETag`, else its `Last-Modified`: sent back as `If-Range`.
    public let validator: String
    /// How many bytes of the body the partial file holds.
    public let bytesOnDisk: Int64
    /// The whole body's length, when the response said it.
    public let totalBytes: Int64?
    /// Where the partial file is.
    public let partialFileURL: URL

    /// The fields never kept: credentials (those ``Redaction`` hides) and the range fields,
    /// which resuming sets itself.
    static let excludedHeaders: Set<HTTPField.Name> = Redaction.credentialHeaders.union([.range, .ifRange])

    init(request: OutgoingRequest, validator: String, bytesOnDisk: Int64, totalBytes: Int64?, partialPath: String) {
        self.init(
            url: Redaction.persistable(request.url), method: request.method.rawValue,
            headers: Self.persistable(request.headerFields), validator: validator, bytesOnDisk: bytesOnDisk,
            totalBytes: totalBytes, partialFileURL: URL(fileURLWithPath: partialPath))
    }

    private init(
        url: URL, method: String, headers: [Header], validator: String, bytesOnDisk: Int64, totalBytes: Int64?,
        partialFileURL: URL
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.validator = validator
        self.bytesOnDisk = bytesOnDisk
        self.totalBytes = totalBytes
        self.partialFileURL = partialFileURL
    }

    private static func persistable(_ fields: HTTPFields) -> [Header] {
        fields.compactMap { field in
            excludedHeaders.contains(field.name) ? nil : Header(name: field.name.rawName, value: field.value)
        }
    }

    /// This resume data with the request as `caller` built it, before the interceptors adapted
    /// it to `adapted`: what they added (a token, an API key, in a field or the query) is added
    /// again when the resumed request passes them, and is never stored. The URL stays the one
    /// the bytes came from when a redirect led elsewhere.
    func asBuilt(by caller: OutgoingRequest, adaptedTo adapted: OutgoingRequest) -> DownloadResumeData {
        let redirected = url != Redaction.persistable(adapted.url)
        return DownloadResumeData(
            url: redirected ? url : Redaction.persistable(caller.url), method: method,
            headers: Self.persistable(caller.headerFields), validator: validator, bytesOnDisk: bytesOnDisk,
            totalBytes: totalBytes, partialFileURL: partialFileURL)
    }

    /// Removes the partial file, when the download will not be resumed. Removes nothing unless
    /// the name is one Curlew gives partial files (`.<name>.curlew-XXXXXX`), whatever stored
    /// resume data says.
    public func discardPartialFile() {
        guard partialFileURL.isFileURL, DownloadFile.isTemporaryFileName(partialFileURL.lastPathComponent) else { return }
        unlink(partialFileURL.path)
    }

    /// The partial file's path, when it is the one Curlew derives for `destination`: in the
    /// destination's folder, named `.<destination name>.curlew-XXXXXX`.
    func partialFilePath(for destination: URL) throws(CurlewError) -> String {
        let partial = partialFileURL.standardizedFileURL
        let folder = destination.deletingLastPathComponent().standardizedFileURL.path
        guard partial.deletingLastPathComponent().path == folder,
            DownloadFile.isTemporaryFileName(partial.lastPathComponent, for: destination.lastPathComponent)
        else {
            throw CurlewError(
                .invalidRequest,
                "the resume data's partial file \(partial.path) is not the partial file of \(destination.path): that is .\(destination.lastPathComponent).curlew-XXXXXX in the same folder",
                url: url)
        }
        return partial.path
    }

    /// The request that continues the download: the one as sent, with `Range: bytes=N-` and
    /// `If-Range`. Resume data may come from storage, so each field is checked first: a refusal
    /// sends nothing.
    func resumingRequest(options: RequestOptions) -> Result<OutgoingRequest, CurlewError> {
        if let problem = problem {
            return .failure(CurlewError(.invalidRequest, "the resume data cannot be used: \(problem)", url: url))
        }
        var fields = HTTPFields()
        for header in headers {
            guard let name = HTTPField.Name(header.name) else {
                return .failure(CurlewError(.invalidHeader, "the resume data holds an invalid header name '\(header.name)'", url: url))
            }
            fields.append(HTTPField(name: name, value: header.value))
        }
        fields[.range] = "bytes=\(bytesOnDisk)-"
        fields[.ifRange] = validator
        return RequestBuilder.build(url: url, method: .get, headers: RequestHeaders(fields), body: nil, options: options)
    }

    /// What makes stored resume data unusable, or nil.
    private var problem: String? {
        let name = partialFileURL.lastPathComponent
        if !partialFileURL.isFileURL || !DownloadFile.isTemporaryFileName(name) {
            return "its partial file \(partialFileURL.path) is not a partial download of Curlew's"
        }
        if method != "GET" { return "its method is \(method), and a range is only defined for GET" }
        if bytesOnDisk < 0 { return "it says the partial file holds \(bytesOnDisk) bytes" }
        if let totalBytes, totalBytes < bytesOnDisk {
            return "it says the partial file holds \(bytesOnDisk) bytes of \(totalBytes)"
        }
        if !ResumeValidator.isUsable(validator) {
            return "its validator is not a strong entity tag or a date, so it cannot be sent as If-Range"
        }
        return nil
    }
}
