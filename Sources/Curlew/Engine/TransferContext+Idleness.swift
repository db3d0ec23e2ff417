import CCurlShims
import Foundation

/// What an idle timeout says: where the exchange stood when the server went quiet, from what
/// libcurl has handed over. libcurl passes a head on whole lines only, so a line that trickles
/// in slower than the limit counts as no line; the message says so rather than claiming that no
/// bytes moved.
extension TransferContext {
    /// The message of an idle timeout of `limit` for this hop, on the curl thread.
    func idleTimeoutMessage(limit: Duration) -> String {
        guard let handle else { return "nothing arrived for \(limit)" }
        var uploaded: curl_off_t = 0
        var downloaded: curl_off_t = 0
        var expected: curl_off_t = -1
        _ = curlew_easy_getinfo_off_t(handle, CURLINFO_SIZE_UPLOAD_T, &uploaded)
        _ = curlew_easy_getinfo_off_t(handle, CURLINFO_SIZE_DOWNLOAD_T, &downloaded)
        _ = curlew_easy_getinfo_off_t(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &expected)
        if finalHead == nil, let length = request.body?.length, Int64(uploaded) < length {
            return "the server took no more of the request body for \(limit) after \(uploaded) of its \(length) bytes, and sent no response"
        }
        guard finalHead != nil else { return headStalledMessage(limit: limit) }
        let total = expected >= 0 ? " of \(expected)" : ""
        return "the response head arrived, then no body bytes for \(limit), after \(downloaded)\(total) bytes of the body"
    }

    /// The head in progress: its complete lines are in the head buffer until its blank line.
    private func headStalledMessage(limit: Duration) -> String {
        let lines = easy.map { buffer in
            UnsafeRawBufferPointer(start: buffer.headBuffer.pointee.bytes, count: buffer.headBuffer.pointee.count)
                .reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        } ?? 0
        let partial =
            "libcurl passes a head on by whole lines, so a line arriving slower than that counts as no progress"
        switch lines {
        case 0:
            return "no response for \(limit) after the request was sent: not even its status line was complete (\(partial))"
        case 1:
            return "the response's status line arrived, then no complete header line for \(limit) (\(partial))"
        default:
            return "the response's status line and \(lines - 1) header lines arrived, then no complete header line for \(limit) (\(partial))"
        }
    }
}
