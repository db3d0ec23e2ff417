import Foundation

/// A small built-in subset of the Public Suffix List, so that a server cannot set a cookie for
/// a whole registry (`Domain=co.uk`) or a shared hosting domain (`Domain=github.io`).
///
/// Every single-label name (`com`, `localhost`, …) counts as a public suffix, as in the full
/// list's default rule. The multi-label suffixes below are the most common ones only: the
/// full list (which libcurl uses through libpsl) has thousands of entries. A name missing here
/// is treated as registrable, so a cookie for it is accepted — the safe direction is to add
/// entries, which ``CookieJar`` lets callers do through `additionalPublicSuffixes`.
enum PublicSuffixes {
    static let builtIn: Set<String> = {
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

    /// Whether `domain` (lowercase, no leading dot) is a public suffix.
    static func isPublicSuffix(_ domain: String, additional: Set<String> = []) -> Bool {
        !domain.contains(".") || builtIn.contains(domain) || additional.contains(domain)
    }

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
