import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What it takes to continue a download that stopped part way: hand it to
/// ``Session/download(resumingWith:to:options:requestOptions:)``.
///
/// A download gives resume data when it is cancelled with
/// ``DownloadRequest/cancel(producingResumeData:)`` or fails on the way (the connection drops, a
/// timeout), as ``CurlewError/downloadResumeData`` — provided that some bytes arrived and the
/// response named a validator (`ETag`, else `Last-Modified`) without a content coding, since
/// without one a server cannot promise that the rest belongs to the same bytes. Otherwise there
/// is none, and the partial file is removed as for any failed download.
///
/// The partial file stays beside the destination (a hidden `.<name>.curlew-XXXXXX` file, not in
/// the temporary folder), so resume data saved as JSON still works after a restart. The file
/// then belongs to the caller: resume with it, or call ``discardPartialFile()``.
///
/// Credentials are never stored: `Authorization`, `Proxy-Authorization` and `Cookie` are left
/// out of ``headers`` (the session adds its own again when resuming).
public struct DownloadResumeData: Codable, Sendable, Equatable {
    /// One header field of the request as sent.
    public struct Header: Codable, Sendable, Equatable {
        /// The field's name.
        public let name: String
        /// The field's value.
        public let value: String
    }

    /// The URL of the download (after redirects: where the bytes came from).
    public let url: URL
    /// The request method, such as `GET`.
    public let method: String
    /// The request's header fields as sent, without credentials, cookies or range fields.
    public let headers: [Header]
    /// The response's `ETag`, else its `Last-Modified`: sent back as `If-Range`.
    public let validator: String
    /// How many bytes of the body the partial file holds.
    public let bytesOnDisk: Int64
    /// The whole body's length, when the response said it.
    public let totalBytes: Int64?
    /// Where the partial file is.
    public let partialFileURL: URL

    static let excludedHeaders: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie, .range, .ifRange]

    init(request: OutgoingRequest, validator: String, bytesOnDisk: Int64, totalBytes: Int64?, partialPath: String) {
        url = request.url
        method = request.method.rawValue
        headers = request.headerFields.compactMap { field in
            Self.excludedHeaders.contains(field.name) ? nil : Header(name: field.name.rawName, value: field.value)
        }
        self.validator = validator
        self.bytesOnDisk = bytesOnDisk
        self.totalBytes = totalBytes
        partialFileURL = URL(fileURLWithPath: partialPath)
    }

    /// Removes the partial file, when the download will not be resumed.
    public func discardPartialFile() {
        unlink(partialFileURL.path)
    }

    /// The request that continues the download: the one as sent, with `Range: bytes=N-` and
    /// `If-Range`.
    func resumingRequest(options: RequestOptions) -> Result<OutgoingRequest, CurlewError> {
        // Resume data may come from storage: only a partial file Curlew named is ever
        // truncated, appended to or moved, never an arbitrary file it points at.
        let name = partialFileURL.lastPathComponent
        guard partialFileURL.isFileURL, name.hasPrefix("."), name.contains(".curlew-"), bytesOnDisk >= 0 else {
            return .failure(CurlewError(
                .invalidRequest, "the resume data's partial file \(partialFileURL.path) is not a partial download of Curlew's",
                url: url))
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
        return RequestBuilder.build(
            url: url, method: HTTPRequest.Method(method) ?? .get, headers: .fields(fields), body: nil, options: options)
    }
}
