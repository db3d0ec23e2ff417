import CPSL
import Foundation

/// The Public Suffix List, so that a server cannot set a cookie for a whole registry
/// (`Domain=co.uk`) or a shared hosting domain (`Domain=github.io`).
///
/// The rules come from libpsl: its newest data, which is the distribution's list file
/// (Debian's `publicsuffix` package, kept current by the system's updates) when that is newer
/// than the list compiled into the library. Every name the list does not know counts as a
/// public suffix when it has one label (`com`, `localhost`, …), as the list's default rule
/// says. ``CookieJar`` callers add their own suffixes through `additionalPublicSuffixes`.
///
/// Only if libpsl cannot load any data does a small built-in subset of the most common
/// suffixes stand in (`subset`).
enum PublicSuffixes {
    /// libpsl's newest data, loaded once; nil only when libpsl has none.
    static let list = PublicSuffixList.newest()

    /// Whether `domain` (lowercase, no leading dot) is a public suffix.
    static func isPublicSuffix(_ domain: String, additional: Set<String> = []) -> Bool {
        if additional.contains(domain) { return true }
        if let list { return list.isPublicSuffix(domain) }
        return !domain.contains(".") || subset.contains(domain)
    }

    /// The stand-in when libpsl has no data: the most common multi-label suffixes.
    static let subset: Set<String> = {
        let countryCodeSecondLevel = [
            "uk": ["co", "org", "me", "ltd", "plc", "net", "ac", "gov", "sch", "nhs", "police"],
            "au": ["com", "net", "org", "edu", "gov", "asn", "id"],
            "nz": ["co", "net", "org", "govt", "ac", "geek", "school"],
            "jp": ["co", "ne", "or", "ac", "go", "gr", "ed", "lg"],
            "kr": ["co", "or", "ne", "go", "ac", "re"],
            "br": ["com", "net", "org", "gov", "edu", "art", "blog"],
            "cn": ["com", "net", "org", "gov", "edu", "ac"],
            "hk": ["com", "org", "net", "edu", "gov", "idv"],
            "tw": ["com", "org", "net", "edu", "gov", "idv"],
            "in": ["co", "net", "org", "firm", "gen", "ind", "ac", "edu", "gov", "res"],
            "za": ["co", "org", "net", "gov", "ac", "web"],
            "mx": ["com", "org", "gob", "edu", "net"],
            "il": ["co", "org", "ac", "gov", "net"],
            "id": ["co", "or", "ac", "go", "web", "my"],
            "th": ["co", "ac", "go", "or", "in"],
            "ar": ["com", "org", "net", "gob", "edu"],
            "tr": ["com", "org", "net", "gov", "edu", "gen"],
            "sg": ["com", "org", "net", "gov", "edu"],
            "my": ["com", "org", "net", "gov", "edu"],
            "ph": ["com", "org", "net", "gov", "edu"],
            "vn": ["com", "org", "net", "gov", "edu"],
            "pk": ["com", "org", "net", "gov", "edu"],
            "ua": ["com", "org", "net", "gov", "edu", "in"],
            "co": ["com", "org", "net", "gov", "edu"],
            "pe": ["com", "org", "net", "gob", "edu"],
            "eg": ["com", "org", "net", "gov", "edu"],
            "sa": ["com", "org", "net", "gov", "edu"],
        ]
        var suffixes = Set<String>()
        for (tld, labels) in countryCodeSecondLevel {
            for label in labels { suffixes.insert("\(label).\(tld)") }
        }
        let sharedHosting = [
            "github.io", "githubusercontent.com", "gitlab.io", "herokuapp.com", "appspot.com", "blogspot.com",
            "cloudfront.net", "s3.amazonaws.com", "elasticbeanstalk.com", "azurewebsites.net", "cloudapp.net",
            "vercel.app", "netlify.app", "pages.dev", "workers.dev", "web.app", "firebaseapp.com", "fly.dev",
            "onrender.com", "glitch.me", "ngrok.io", "ngrok-free.app", "readthedocs.io", "surge.sh",
        ]
        suffixes.formUnion(sharedHosting)
        return suffixes
    }()

    /// The registrable domain of `host` (the public suffix plus one label), the host itself for
    /// IP addresses, or nil when the host is itself a public suffix.
    static func registrableDomain(of host: String, additional: Set<String> = []) -> String? {
        if CookieRules.isIPAddress(host) { return host }
        if isPublicSuffix(host, additional: additional) { return nil }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return nil }
        for start in 1..<labels.count {
            let suffix = labels[start...].joined(separator: ".")
            if isPublicSuffix(suffix, additional: additional) {
                return labels[(start - 1)...].joined(separator: ".")
            }
        }
        return nil
    }
}
