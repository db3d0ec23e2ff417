import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Checks that text is an IP address in the form `inet_pton` accepts.
enum IPAddressText {
    /// Whether `text` is a dotted-quad IPv4 address.
    static func isIPv4(_ text: String) -> Bool { parses(text, family: AF_INET, size: 4) }

    /// Whether `text` is an IPv6 address, without brackets or zone.
    static func isIPv6(_ text: String) -> Bool { parses(text, family: AF_INET6, size: 16) }

    private static func parses(_ text: String, family: Int32, size: Int) -> Bool {
        guard !text.isEmpty, !text.utf8.contains(0) else { return false }
        var buffer = [UInt8](repeating: 0, count: size)
        return buffer.withUnsafeMutableBytes { raw in
            text.withCString { inet_pton(family, $0, raw.baseAddress) == 1 }
        }
    }
}
