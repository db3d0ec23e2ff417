#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `User-Agent` Curlew sends by default: `Curlew/0.1.0 (Linux; 6.8.0-45-generic)` —
/// Curlew's version, and the operating system and kernel release from `uname`, so that a
/// server's logs say what sent a request.
///
/// It does not name the libcurl that runs the transfers: a server has no use for it, it
/// tells anyone who reads the logs which libcurl to aim at, and libcurl 7.88 formats every
/// header byte of every request through its printf: the 15 bytes of ` libcurl/7.88.1` it
/// once carried cost about 1.5k instructions per small request.
enum UserAgent {
    /// The value for this process, made once.
    static let process: String = {
        let (system, release) = kernel()
        return value(version: CurlewVersion.current, system: system, release: release)
    }()

    /// The value from its parts; each part is cleaned with ``token(_:)`` so that a strange
    /// kernel release cannot break the header.
    static func value(version: String, system: String, release: String) -> String {
        var platform = token(system)
        if platform.isEmpty { platform = "unknown" }
        let kernel = token(release)
        var text = "Curlew/\(token(version)) (\(platform)"
        if !kernel.isEmpty { text += "; \(kernel)" }
        return text + ")"
    }

    /// `text` with only visible ASCII other than `(`, `)`, `;` and `\`, the characters that
    /// would end or confuse a product version or a comment; others become `_`, at most 64.
    static func token(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.prefix(64).map { scalar in
                    let value = scalar.value
                    let allowed = value > 0x20 && value < 0x7F && !"();\\".unicodeScalars.contains(scalar)
                    return allowed ? scalar : "_"
                }))
    }

    /// The system name and release from `uname`, such as `("Linux", "6.8.0-45-generic")`.
    private static func kernel() -> (String, String) {
        var names = utsname()
        guard uname(&names) == 0 else { return ("", "") }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        return (text(names.sysname), text(names.release))
    }
}
