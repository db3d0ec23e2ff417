import CCurlShims
import Foundation

extension TransferContext {
    /// libcurl asks for the next bytes of the body. A body with a declared length is held to
    /// it: past it the transfer fails before the last bytes go out (they would otherwise reach
    /// the server as the start of another request on a kept-alive connection), and a body
    /// that ends short of it fails at once instead of leaving the server waiting.
    func handleRead(into buffer: UnsafeMutableRawBufferPointer, at now: ContinuousClock.Instant) -> Int {
        if isSuspended { return Int(curlew_CURL_READFUNC_PAUSE) }
        lastActivity = now
        guard let length = uploadLength else {
            let count = readBody(into: buffer, remaining: nil)
            if count > 0 && count != Int(curlew_CURL_READFUNC_PAUSE) && count != Int(curlew_CURL_READFUNC_ABORT) {
                bodyStarted = true
            }
            return count
        }
        let remaining = length - uploadedBytes
        let window = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), max(remaining, 0)))])
        let count = readBody(into: window, remaining: remaining)
        if count == Int(curlew_CURL_READFUNC_PAUSE) || count == Int(curlew_CURL_READFUNC_ABORT) { return count }
        uploadedBytes += Int64(count)
        if count > 0 { bodyStarted = true }
        if count == 0 && remaining > 0 {
            fail(.uploadFailed, "the request body ended after \(uploadedBytes) of its declared \(length) bytes")
            return Int(curlew_CURL_READFUNC_ABORT)
        }
        if uploadedBytes == length && bodyHasMoreBytes() {
            fail(.uploadFailed, "the request body is longer than its declared \(length) bytes")
            return Int(curlew_CURL_READFUNC_ABORT)
        }
        return count
    }

    private func readBody(into buffer: UnsafeMutableRawBufferPointer, remaining: Int64?) -> Int {
        if let uploadPump {
            let count = uploadPump.read(into: buffer, remaining: remaining)
            if count == Int(curlew_CURL_READFUNC_PAUSE) { isWaitingOnConsumer = true }
            if count == Int(curlew_CURL_READFUNC_ABORT), let error = uploadPump.failure { record(error) }
            return count
        }
        guard let upload else { return 0 }
        do {
            return try upload.read(into: buffer)
        } catch {
            record(error)
            return Int(curlew_CURL_READFUNC_ABORT)
        }
    }

    private func bodyHasMoreBytes() -> Bool {
        if let uploadPump { return uploadPump.hasBufferedBytes }
        return upload?.hasMoreBytes() ?? false
    }

    func handleSeek(to offset: Int64) -> Int32 {
        guard let upload, uploadPump == nil, upload.seek(to: offset) else { return curlew_CURL_SEEKFUNC_CANTSEEK }
        uploadedBytes = offset
        return curlew_CURL_SEEKFUNC_OK
    }
}
