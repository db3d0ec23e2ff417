import Foundation

/// The `Accept-Language` value Curlew sends by default: the process's languages, as Alamofire
/// sends the device's preferred languages (at most six, with q-values `1.0, 0.9, …`).
///
/// On Linux the languages come from the environment, as gettext reads them:
///
/// 1. `LANGUAGE`, a colon-separated list (`de_DE:de:en`), unless the locale is `C` or `POSIX`;
/// 2. otherwise the locale: the first of `LC_ALL`, `LC_MESSAGES` and `LANG` that is set and
///    not empty.
///
/// An entry such as `de_DE.UTF-8@euro` becomes `de-DE`: the codeset and the modifier are
/// dropped, the language is lowercased and the region uppercased. `C`, `POSIX` (also as
/// `C.UTF-8`) and entries that are not a language (2 or 3 letters) with an optional region (2
/// letters or 3 digits) give nothing. With no language at all the value is nil and no header
/// is sent: the server then answers in its default language, which is what a process without
/// a language setting asked for — sending `en` instead would claim a preference nobody stated.
///
/// As in gettext, an explicit `C` or `POSIX` locale overrides `LANGUAGE` (it means
/// "untranslated"); unlike gettext, `LANGUAGE` counts when no locale variable is set at all,
/// as in containers that set only `LANGUAGE`.
enum AcceptLanguage {
    /// The most languages sent, as Alamofire sends.
    static let maximumLanguages = 6

    /// The header value for this process, read from its environment once.
    static let process: String? = value(environment: ProcessInfo.processInfo.environment)

    /// The header value for `environment`, or nil when it names no language.
    static func value(environment: [String: String]) -> String? {
        let tags = languageTags(environment: environment)
        guard !tags.isEmpty else { return nil }
        return tags.enumerated().map { index, tag in
            // 1.0, 0.9, … 0.5, written from integers so that no float rounding shows.
            "\(tag);q=" + (index == 0 ? "1.0" : "0.\(10 - index)")
        }.joined(separator: ", ")
    }

    /// The BCP 47 tags `environment` names, best first, without repeats, at most
    /// ``maximumLanguages``.
    static func languageTags(environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        if let locale, isUntranslated(locale) { return [] }
        var tags: [String] = []
        for entry in (environment["LANGUAGE"] ?? "").split(separator: ":") {
            guard let tag = tag(fromLocale: entry), !tags.contains(tag) else { continue }
            tags.append(tag)
            if tags.count == maximumLanguages { break }
        }
        if tags.isEmpty, let locale, let tag = tag(fromLocale: Substring(locale)) { tags.append(tag) }
        return tags
    }

    /// `de_DE.UTF-8@euro` as `de-DE`; nil for `C`, `POSIX` and anything that is not a
    /// language with an optional region. Only ASCII letters, digits and `-` come out, so the
    /// result is always a valid header value.
    static func tag(fromLocale entry: Substring) -> String? {
        let name = entry.prefix { $0 != "." && $0 != "@" }
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count <= 2, let language = parts.first, (2...3).contains(language.utf8.count),
            language.utf8.allSatisfy(isASCIILetter)
        else { return nil }
        var tag = language.lowercased()
        if parts.count == 2 {
            let region = parts[1].utf8
            let isLetters = region.count == 2 && region.allSatisfy(isASCIILetter)
            let isDigits = region.count == 3 && region.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            guard isLetters || isDigits else { return nil }
            tag += "-" + parts[1].uppercased()
        }
        return tag
    }

    /// Whether a locale name is `C` or `POSIX`, with or without a codeset or modifier.
    private static func isUntranslated(_ locale: String) -> Bool {
        let name = locale.prefix { $0 != "." && $0 != "@" }
        return name == "C" || name == "POSIX"
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
