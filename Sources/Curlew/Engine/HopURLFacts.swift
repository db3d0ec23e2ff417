/// What the curl thread reads from a hop's URL, found in one pass over the bytes of its text
/// (`URL.absoluteString`), instead of through `URL`'s getters, which parse again each time.
struct HopURLFacts: Equatable {
    /// The scheme is `https`, in any case.
    var isHTTPS = false
    /// The scheme is `http+unix`, in any case: the host names a Unix-domain socket.
    var isUnixScheme = false
    /// The authority (between `://` and the next `/`, `?` or `#`) holds an `@`: a user name,
    /// perhaps with a password.
    var hasUserInfo = false

    init(_ text: String) {
        var text = text
        self = text.withUTF8 { Self(bytes: $0) }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        let scheme = UnsafeBufferPointer(rebasing: bytes[..<colon])
        isHTTPS = Self.equalsIgnoringCase(scheme, "https")
        isUnixScheme = !isHTTPS && Self.equalsIgnoringCase(scheme, "http+unix")
        var index = colon + 1
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") else {
            return
        }
        index += 2
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "@"):
                hasUserInfo = true
                return
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): return
            default: index += 1
            }
        }
    }

    /// Whether `bytes` spell `lowercase` (given in lower case), ASCII letters in any case.
    private static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected[index] { return false }
        }
        return true
    }
}
