@testable import Curlew
import Foundation
import Testing

/// A proxy's own trust policy as a value, without a network.
@Suite("Proxy trust values")
struct ProxyTrustValueTests {
    private func https(_ trust: TrustPolicy = .systemTrust) -> ProxyConfiguration {
        .explicit(.https, host: "proxy.example", port: 3129, trust: trust)
    }

    @Test func configurationsCompareByWhatTheirProxysPolicyChecks() {
        let authorities = TrustPolicy.certificateAuthorities([.file("/etc/proxy-ca.pem")])
        #expect(https(authorities) == https(.certificateAuthorities([.file("/etc/proxy-ca.pem")])))
        #expect(Set([https(authorities), https(authorities)]).count == 1)
        #expect(https() == https(.systemTrust))
        for other in [
            https(), https(.certificateAuthorities([.file("/etc/other-ca.pem")])), https(authorities.minimumTLSVersion(.v1_3)),
            https(authorities.clientCertificate(.pem(certificateFile: "/c.pem", keyFile: "/k.pem"))),
            https(.publicKeys(["sha256//AAAA"])), https(.publicKeys(["sha256//AAAA"], validateChain: false)),
            https(.insecureNoEvaluation(reason: "test")),
        ] {
            #expect(https(authorities) != other, "\(other)")
        }
        #expect(https(.publicKeys(["sha256//AAAA"])) != https(.publicKeys(["sha256//BBBB"])))
    }

    @Test func theDescriptionNamesAnHTTPSProxysPolicyButNoSecret() {
        let client = ClientCertificate.pem(certificateFile: "/c.pem", keyFile: "/k.pem", passphrase: "s3cret-pass")
        let proxy = ProxyConfiguration.explicit(
            .https, host: "proxy.example", port: 3129, username: "me", password: ProxyTesting.password,
            trust: TrustPolicy.certificateAuthorities([.file("/etc/proxy-ca.pem")]).clientCertificate(client))
        #expect(proxy.description == "https://proxy.example:3129 (trusted by only 1 certificate authority source(s))")
        #expect(https().description == "https://proxy.example:3129")
    }

    @Test func pinsGoToLibcurlInItsOwnForm() throws {
        let first = "sha256//" + Data(repeating: 1, count: 32).base64EncodedString()
        let second = "sha256//" + Data(repeating: 2, count: 32).base64EncodedString()
        let resolved = try #require(https(.publicKeys([second, first])).resolvedTrust())
        #expect(try resolved.get().libcurlPinnedPublicKeys == "\(first);\(second)")
        #expect(try #require(https(.insecureNoEvaluation(reason: "test")).resolvedTrust()).get().libcurlPinnedPublicKeys == nil)
        // libcurl's defaults need nothing resolved: system trust, or a proxy that is not https.
        #expect(https().resolvedTrust() == nil)
        #expect(ProxyConfiguration.explicit(.http, host: "p", port: 1).resolvedTrust() == nil)
    }
}
