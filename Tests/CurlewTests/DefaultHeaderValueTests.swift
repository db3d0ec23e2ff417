@testable import Curlew
import Foundation
import HTTPTypes
import Testing

/// The default `Accept-Language` and `User-Agent` values, from a given environment and
/// `uname`, without a network and without touching the process environment.
@Suite("Default header values: Accept-Language from the locale, User-Agent")
struct DefaultHeaderValueTests {
    private func acceptLanguage(_ environment: [String: String]) -> String? {
        AcceptLanguage.value(environment: environment)
    }

    @Test func aLocaleBecomesALanguageTag() {
        #expect(acceptLanguage(["LANG": "de_DE.UTF-8"]) == "de-DE;q=1.0")
        #expect(acceptLanguage(["LANG": "fr"]) == "fr;q=1.0")
        #expect(acceptLanguage(["LANG": "es_419.UTF-8"]) == "es-419;q=1.0", "a UN M.49 region")
        #expect(acceptLanguage(["LANG": "DE_de"]) == "de-DE;q=1.0", "language lower, region upper")
        #expect(acceptLanguage(["LANG": "fil_PH"]) == "fil-PH;q=1.0", "a three-letter language")
    }

    @Test func codesetsAndModifiersAreDropped() {
        #expect(acceptLanguage(["LANG": "de_DE.ISO-8859-15@euro"]) == "de-DE;q=1.0")
        #expect(acceptLanguage(["LANG": "de_DE@euro"]) == "de-DE;q=1.0")
        #expect(acceptLanguage(["LANG": "sr_RS@latin"]) == "sr-RS;q=1.0")
        #expect(acceptLanguage(["LANG": "ca_ES.UTF-8@valencia"]) == "ca-ES;q=1.0")
    }

    @Test func theFirstSetLocaleVariableDecides() {
        let all = ["LC_ALL": "it_IT.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LANG": "de_DE.UTF-8"]
        #expect(acceptLanguage(all) == "it-IT;q=1.0")
        #expect(acceptLanguage(all.merging(["LC_ALL": ""]) { $1 }) == "fr-FR;q=1.0", "empty counts as unset")
        #expect(acceptLanguage(["LANG": "de_DE.UTF-8", "LC_MESSAGES": ""]) == "de-DE;q=1.0")
        // LC_CTYPE and the like are not about languages.
        #expect(acceptLanguage(["LC_CTYPE": "ja_JP.UTF-8"]) == nil)
    }

    @Test func languageListsGetQValuesAndAtMostSix() {
        let environment = ["LANGUAGE": "de_DE:de:en_GB:fr:it:es:pt:nl", "LANG": "de_DE.UTF-8"]
        #expect(acceptLanguage(environment) == "de-DE;q=1.0, de;q=0.9, en-GB;q=0.8, fr;q=0.7, it;q=0.6, es;q=0.5")
        #expect(AcceptLanguage.languageTags(environment: environment).count == AcceptLanguage.maximumLanguages)
        // LANGUAGE comes before the locale, which it replaces.
        #expect(acceptLanguage(["LANGUAGE": "pt_BR:en", "LANG": "de_DE.UTF-8"]) == "pt-BR;q=1.0, en;q=0.9")
        // Repeats go, and entries that are not languages are skipped without using up a place.
        #expect(acceptLanguage(["LANGUAGE": "de:x:de:en.UTF-8@mod::C", "LANG": "fr_FR"]) == "de;q=1.0, en;q=0.9")
        // Counts when no locale variable is set at all.
        #expect(acceptLanguage(["LANGUAGE": "nb_NO:nn"]) == "nb-NO;q=1.0, nn;q=0.9")
    }

    @Test func aLanguageListOfNothingFallsBackToTheLocale() {
        #expect(acceptLanguage(["LANGUAGE": "", "LANG": "fr_FR.UTF-8"]) == "fr-FR;q=1.0")
        #expect(acceptLanguage(["LANGUAGE": "x:?:C", "LANG": "fr_FR.UTF-8"]) == "fr-FR;q=1.0")
    }

    @Test func cAndPOSIXMeanNoHeaderAndOverrideLANGUAGE() {
        for locale in ["C", "POSIX", "C.UTF-8", "C.utf8", "POSIX@x"] {
            #expect(acceptLanguage(["LANG": locale]) == nil, "\(locale)")
            #expect(acceptLanguage(["LC_ALL": locale, "LANGUAGE": "de:en", "LANG": "de_DE"]) == nil, "\(locale)")
        }
        #expect(acceptLanguage([:]) == nil)
        #expect(acceptLanguage(["LANG": ""]) == nil)
        // A C locale further down does not count once a variable before it names a language.
        #expect(acceptLanguage(["LC_MESSAGES": "sv_SE.UTF-8", "LANG": "C"]) == "sv-SE;q=1.0")
    }

    @Test func garbageNeverMakesAnInvalidHeader() {
        let garbage = [
            "../../etc/passwd", "de_DE\r\nX-Evil: 1", "de_DE\nX: y", "Deutsch", "de_DEU", "e", "日本語_JP", "en_US_POSIX",
            "de_", "_DE", "de-DE", "de_D1", "d3_DE", "de_DE;q=1", "de,en", " de", "de\u{0}", "😀",
        ]
        for entry in garbage {
            for environment in [["LANG": entry], ["LANGUAGE": entry]] {
                let value = acceptLanguage(environment)
                #expect(value == nil, "\(environment) gave \(value ?? "")")
            }
        }
        // Mixed into a list, garbage is skipped and the rest still forms a valid value.
        let mixed = acceptLanguage(["LANGUAGE": garbage.joined(separator: ":") + ":fr_CA:en"])
        #expect(mixed == "fr-CA;q=1.0, en;q=0.9")
        #expect(HTTPField.isValidValue(mixed ?? ""))
    }

    @Test func theSessionDefaultIsTheProcessValueReadOnce() {
        let expected = acceptLanguage(ProcessInfo.processInfo.environment)
        #expect(SessionConfiguration.defaultAcceptLanguage == expected)
        #expect(SessionConfiguration().acceptLanguage == expected)
    }

    // MARK: User-Agent

    @Test func userAgentNamesCurlewAndTheSystem() {
        #expect(
            UserAgent.value(version: "0.1.0", system: "Linux", release: "6.8.0-45-generic")
                == "Curlew/0.1.0 (Linux; 6.8.0-45-generic)")
        #expect(UserAgent.value(version: "1.2", system: "", release: "") == "Curlew/1.2 (unknown)")
    }

    @Test func userAgentPartsCannotBreakTheHeader() {
        let value = UserAgent.value(
            version: "0.1 (x)", system: "Linux\r\nX-Evil: 1", release: "6.8 (custom); \\build é\0" + String(repeating: "9", count: 100))
        #expect(HTTPField.isValidValue(value), "\(value)")
        #expect(value.hasPrefix("Curlew/0.1__x_ (Linux__X-Evil:_1; 6.8__custom____build___999"), "\(value)")
        #expect(value.filter { $0 == "(" }.count == 1 && value.filter { $0 == ")" }.count == 1, "\(value)")
        #expect(value.hasSuffix("99)"), "\(value)")
        #expect(value.count < 150, "each part is cut at 64 characters")
    }

    @Test func theDefaultUserAgentCarriesTheRunningKernelRelease() throws {
        // Read independently of uname(2): the kernel's own file.
        let release = try String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let userAgent = SessionConfiguration.defaultUserAgent
        #expect(userAgent == "Curlew/\(CurlewVersion.current) (Linux; \(release))", "\(userAgent)")
        #expect(SessionConfiguration().userAgent == userAgent)
        #expect(HTTPField.isValidValue(userAgent))
    }
}
