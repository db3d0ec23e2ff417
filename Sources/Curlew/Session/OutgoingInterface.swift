/// The local end that connections leave from (`CURLOPT_INTERFACE`, curl's `--interface`).
///
/// Each text must be non-empty, at most 255 bytes, without whitespace or control characters,
/// and an interface name at most 15 bytes (`IFNAMSIZ`); otherwise requests fail with
/// ``CurlewError/Kind/invalidRequest`` before any connection. An interface or address the
/// system does not have fails the request when it connects, with ``CurlewError/Kind/transport``.
public enum OutgoingInterface: Sendable, Hashable {
    /// A name that libcurl tries as an interface, then as an address or host name.
    case name(String)
    /// A network interface by name, such as `eth0` (curl's `if!eth0`): the socket is bound to
    /// the device, so a route through another interface fails.
    case interface(String)
    /// A local IP address or host name to bind to (curl's `host!192.0.2.1`).
    case host(String)

    /// The value of `CURLOPT_INTERFACE`.
    var curlValue: String {
        switch self {
        case .name(let name): name
        case .interface(let name): "if!" + name
        case .host(let host): "host!" + host
        }
    }

    /// Why libcurl could not take this, or nil.
    var problem: String? {
        let text: String
        switch self {
        case .name(let name): text = name
        case .interface(let name):
            if name.utf8.count > 15 { return "the interface name '\(name.prefix(40))' is longer than 15 bytes" }
            text = name
        case .host(let host): text = host
        }
        if text.isEmpty { return "the outgoing interface is empty" }
        if text.utf8.count > 255 { return "the outgoing interface '\(text.prefix(40))…' is longer than 255 bytes" }
        if text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "the outgoing interface \(String(text.prefix(60)).debugDescription) has whitespace or a control character"
        }
        return nil
    }
}
