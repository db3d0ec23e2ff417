import Glibc

/// A network interface that is up and running with at least one address, as part of a
/// ``NetworkPath``.
public struct NetworkInterface: Sendable, Hashable {
    /// One address of the interface.
    public struct Address: Sendable, Hashable, CustomStringConvertible {
        /// The address in its usual text form (`192.0.2.7`, `2001:db8::7`).
        public var address: String
        /// The prefix length of the attached subnet.
        public var prefixLength: Int
        /// Whether it is an IPv6 address.
        public var isIPv6: Bool

        /// Creates an address.
        public init(address: String, prefixLength: Int, isIPv6: Bool) {
            self.address = address
            self.prefixLength = prefixLength
            self.isIPv6 = isIPv6
        }

        /// `address/prefixLength`.
        public var description: String { "\(address)/\(prefixLength)" }
    }

    /// The kernel's interface index.
    public var index: Int
    /// The name, such as `eth0`.
    public var name: String
    /// Whether it is a loopback interface.
    public var isLoopback: Bool
    /// Its addresses, IPv4 first.
    public var addresses: [Address]

    /// Creates an interface.
    public init(index: Int, name: String, isLoopback: Bool, addresses: [Address]) {
        self.index = index
        self.name = name
        self.isLoopback = isLoopback
        self.addresses = addresses
    }
}

extension NetworkInterface.Address {
    /// The text form of 4 or 16 bytes in network order; nil for any other length.
    static func text(of bytes: [UInt8]) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let converted = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count))
        }
        guard converted != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
