import CCurlShims

extension TransferMetrics {
    /// Reads the metrics of a finished hop from its easy handle.
    init(handle: UnsafeMutableRawPointer) {
        func time(_ info: CURLINFO) -> Duration {
            var value: curl_off_t = 0
            _ = curlew_easy_getinfo_off_t(handle, info, &value)
            return .microseconds(value)
        }
        func size(_ info: CURLINFO) -> Int64 {
            var value: curl_off_t = 0
            _ = curlew_easy_getinfo_off_t(handle, info, &value)
            return Int64(value)
        }
        func long(_ info: CURLINFO) -> Int {
            var value = 0
            _ = curlew_easy_getinfo_long(handle, info, &value)
            return value
        }
        var ip: UnsafePointer<CChar>?
        _ = curlew_easy_getinfo_string(handle, CURLINFO_PRIMARY_IP, &ip)
        let address = ip.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        let version: HTTPVersion
        switch long(CURLINFO_HTTP_VERSION) {
        case Int(curlew_CURL_HTTP_VERSION_1_1): version = .http1_1
        case Int(curlew_CURL_HTTP_VERSION_2_0): version = .http2
        case Int(curlew_CURL_HTTP_VERSION_3): version = .http3
        case 1: version = .http1_0
        default: version = .unknown
        }
        let port = long(CURLINFO_PRIMARY_PORT)
        self.init(
            dnsLookup: time(CURLINFO_NAMELOOKUP_TIME_T), connect: time(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: time(CURLINFO_APPCONNECT_TIME_T), timeToFirstByte: time(CURLINFO_STARTTRANSFER_TIME_T),
            total: time(CURLINFO_TOTAL_TIME_T), bytesSent: size(CURLINFO_SIZE_UPLOAD_T),
            bytesReceived: size(CURLINFO_SIZE_DOWNLOAD_T), remoteAddress: address,
            remotePort: port > 0 ? port : nil, httpVersion: version,
            connectionReused: long(CURLINFO_NUM_CONNECTS) == 0)
    }
}
