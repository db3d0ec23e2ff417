// Trust policies and proxies.
// snippet.hide
import Curlew
import Foundation

let secret = "passphrase"

// snippet.show
// snippet.trust
var configuration = SessionConfiguration()
configuration.trust = TrustConfiguration(
    default: .systemTrust,
    hosts: [
        .exact("api.example.com"): .publicKeys(["sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="]),
        .wildcard("*.corp.example"): TrustPolicy.certificateAuthorities([.file("/etc/corp/ca.pem")])
            .minimumTLSVersion(.v1_3)
            .clientCertificate(.pkcs12(file: "/etc/corp/me.p12", passphrase: secret)),
        .exact("192.168.1.20"): .fingerprints([.sha256("AB:CD:EF")], validateChain: false),
    ])
// snippet.end

// snippet.proxy
configuration.proxy = .none                            // ignore the environment
configuration.proxy = .explicit(.http, host: "proxy.internal", port: 3128,
                                username: "svc", password: secret,
                                bypassing: ["metadata.internal", "10.0.0.0/8"])

// An HTTPS proxy: TLS to the proxy, trusted by its own policy (the session's `trust` is for origins).
configuration.proxy = .explicit(.https, host: "proxy.internal", port: 3129,
                                trust: .certificateAuthorities([.file("/etc/corp/proxy-ca.pem")]))

var options = RequestOptions()
options.proxy = ProxyConfiguration.none                // per request, over the session's
// snippet.end

// snippet.hide
let session = Session(configuration: configuration)
await session.shutdown()
