import Curlew

/// The exit statuses of `curlew`, as `--help` lists them.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    /// Any failure not listed below.
    case failure = 1
    /// A connect, idle or total timeout (`--timeout`), or a transfer slower than the minimum.
    case timeout = 2
    /// With `--check-status`: a 3xx (not followed), 4xx or 5xx response.
    case redirection = 3
    case clientError = 4
    case serverError = 5
    /// More redirects than `--max-redirects`.
    case tooManyRedirects = 6
    /// The host was not found, refused the connection, or the proxy failed.
    case connectionFailure = 7
    /// The TLS handshake failed, or the server's certificate was not trusted (or not pinned).
    case tlsFailure = 8
    /// Bad input: an invalid option or item, a missing file, a malformed URL.
    case badInput = 64

    /// The lines `--help` prints.
    static let helpText = """
        EXIT STATUS:
          0   success (any status without --check-status)
          1   any other failure (a selection that matches nothing, a write error)
          2   timeout (connect, idle or total; --timeout)
          3   --check-status and a 3xx response (not followed without --follow)
          4   --check-status and a 4xx response
          5   --check-status and a 5xx response
          6   too many redirects (--max-redirects)
          7   connection failure: host not found, connection refused, proxy failure
          8   TLS failure: handshake failed, certificate not trusted, pin mismatch
          64  bad input: invalid option or item, missing file, malformed URL
        """

    /// The status `--check-status` gives a response with `code`.
    static func forStatus(_ code: Int) -> ExitStatus {
        switch code {
        case 300..<400: return .redirection
        case 400..<500: return .clientError
        case 500..<600: return .serverError
        default: return .success
        }
    }

    /// The status a failed request gives.
    static func forError(_ error: CurlewError) -> ExitStatus {
        switch error.kind {
        case .connectTimeout, .idleTimeout, .totalTimeout, .tooSlow:
            return .timeout
        case .tooManyRedirects:
            return .tooManyRedirects
        case .hostNotFound, .connectionRefused, .notConnected, .proxyFailure:
            return .connectionFailure
        case .tlsFailure, .untrustedServer:
            return .tlsFailure
        case .invalidURL, .unsupportedScheme:
            return .badInput
        default:
            return .failure
        }
    }
}
