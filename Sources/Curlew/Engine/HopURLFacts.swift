/// What the curl thread reads from a hop's URL, found in one pass over the bytes of its text
/// (`URL.absoluteString`, laid out by ``URLTextLayout``), instead of through `URL`'s getters,
/// which parse again each time.
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
        guard let layout = URLTextLayout(bytes) else { return }
        let scheme = UnsafeBufferPointer(rebasing: bytes[..<layout.schemeEnd])
        isHTTPS = URLTextLayout.equalsIgnoringCase(scheme, "https")
        isUnixScheme = !isHTTPS && URLTextLayout.equalsIgnoringCase(scheme, "http+unix")
        hasUserInfo = layout.hasUserInfo
    }
}
