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

    /// The facts of `request`'s URL; read off the grammar for a plain text
    /// (``OutgoingRequest/hasPlainURLText``: `http://` or `https://`, no user information).
    init(of request: OutgoingRequest) {
        var text = request.urlText
        if request.hasPlainURLText {
            self.init(isHTTPS: text.withUTF8 { $0.count > 4 && $0[4] == UInt8(ascii: "s") })
        } else {
            self = text.withUTF8 { Self(bytes: $0) }
        }
    }

    private init(isHTTPS: Bool) {
        self.isHTTPS = isHTTPS
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        guard let layout = URLTextLayout(bytes) else { return }
        let scheme = UnsafeBufferPointer(rebasing: bytes[..<layout.schemeEnd])
        isHTTPS = URLTextLayout.equalsIgnoringCase(scheme, "https")
        isUnixScheme = !isHTTPS && URLTextLayout.equalsIgnoringCase(scheme, "http+unix")
        hasUserInfo = layout.hasUserInfo
    }
}
