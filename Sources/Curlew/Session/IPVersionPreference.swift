/// Which IP versions a request may connect over (`CURLOPT_IPRESOLVE`, curl's `-4` and `-6`).
public enum IPVersionPreference: Sendable, Hashable {
    /// Addresses of either version, IPv6 first with IPv4 after the happy-eyeballs delay (the default).
    case any
    /// IPv4 addresses only; a host without one fails with ``CurlewError/Kind/hostNotFound``.
    case ipv4Only
    /// IPv6 addresses only; a host without one fails with ``CurlewError/Kind/hostNotFound``.
    case ipv6Only

    /// libcurl's `CURL_IPRESOLVE_*` value.
    var curlValue: Int {
        switch self {
        case .any: 0
        case .ipv4Only: 1
        case .ipv6Only: 2
        }
    }

    /// curl's flag, nil for ``any``.
    var curlFlag: String? {
        switch self {
        case .any: nil
        case .ipv4Only: "-4"
        case .ipv6Only: "-6"
        }
    }
}
