import Foundation
import HTTPTypes

/// Renders a request as a `curl` command line for a POSIX shell.
///
/// Secrets are not repeated unless asked for: a password in the URL and the values of secret
/// query parameters, the passwords of HTTP authentication (`-u 'user:***'`), of the proxy and
/// of a client certificate's key, the credentials of `Authorization`, `Proxy-Authorization`
/// and `Cookie`, and the secret fields of JSON and form bodies are replaced by `***` (see
/// ``Redaction``).
enum CURLCommand {
    /// The proxy as curl's options: `-x` and `-U` with the password shown as `***` unless
    /// `revealing`.
    private static func proxyArguments(_ proxy: ProxyConfiguration, revealing: Bool) -> [String] {
        switch proxy.mode {
        case .none:
            return ["--noproxy", quote("*")]
        case .environment:
            return ["--noproxy", quote(ProxyConfiguration.environmentBypassList())]
        case .explicit(_, _, _, let username, let password, let bypassing):
            var arguments = ["-x", quote(proxy.displayURL ?? "")]
            if let username {
                // `user:` without a password: curl would prompt for one after `-U user`.
                let shown = password.map { revealing ? $0 : Redaction.placeholder } ?? ""
                arguments += ["-U", quote(username + ":" + shown)]
            }
            if let flag = proxy.authentication.proxyCurlFlag { arguments.append(flag) }
            if !bypassing.isEmpty { arguments += ["--noproxy", quote(bypassing.joined(separator: ","))] }
            if proxy.isExplicitHTTPS { arguments += trustArguments(proxy.trust.policy, revealing: revealing, forProxy: true) }
            return arguments
        }
    }

    /// curl's flags for what a trust policy does that curl can do too; pins by certificate,
    /// fingerprints and custom evaluations have no curl flag and only drop `--insecure` in. A
    /// key's passphrase shows as `***` unless `revealing`. `forProxy` gives curl's flags for an
    /// HTTPS proxy's own TLS (`--proxy-cacert`, …), which have no minimum-version flag beyond
    /// TLS 1.0.
    static func trustArguments(_ policy: TrustPolicy, revealing: Bool, forProxy: Bool = false) -> [String] {
        var parts: [String] = []
        func flag(_ name: String) -> String { forProxy ? "--proxy-" + name : "--" + name }
        func caArguments(_ sources: [CertificateSource]) {
            for source in sources {
                switch source.storage {
                case .file(let path): parts += [flag("cacert"), quote(path)]
                case .directory(let path): parts += [flag("capath"), quote(path)]
                case .pem, .der: break
                }
            }
        }
        switch policy.evaluation {
        case .system(let additional): caArguments(additional)
        case .certificateAuthorities(let sources): caArguments(sources)
        case .publicKeys(let pins, let validateChain):
            if !validateChain { parts.append(flag("insecure")) }
            parts += [flag("pinnedpubkey"), quote(pins.joined(separator: ";"))]
        case .certificates(_, let validateChain), .fingerprints(_, let validateChain), .custom(let validateChain, _):
            if !validateChain { parts.append(flag("insecure")) }
        case .disabled: parts.append(flag("insecure"))
        }
        // The certificate authorities a pin's chain is validated against (`validatingChain(against:)`).
        if let authorities = policy.chainAuthorities { caArguments(authorities) }
        if let file = policy.revocationListFile { parts += [flag("crlfile"), quote(file)] }
        if policy.minimumTLSVersion == .v1_3, !forProxy { parts.append("--tlsv1.3") }
        let parameters = policy.tlsParameters
        if let list = parameters.cipherList { parts += [flag("ciphers"), quote(list)] }
        if let list = parameters.tls13CipherList { parts += [flag("tls13-ciphers"), quote(list)] }
        if !forProxy, let list = parameters.groupList { parts += ["--curves", quote(list)] }
        if !forProxy, parameters.requiresOCSPStapling { parts.append("--cert-status") }
        if let certificate = policy.clientCertificate {
            if case .file(let path) = certificate.certificate {
                parts += [flag("cert"), quote(path), flag("cert-type"), certificate.format.rawValue]
            }
            if case .file(let path)? = certificate.key {
                parts += [flag("key"), quote(path), flag("key-type"), certificate.keyFormat.rawValue]
            }
            if let passphrase = certificate.passphrase {
                parts += [flag("pass"), quote(revealing ? passphrase : Redaction.placeholder)]
            }
        }
        return parts
    }

    /// The command for `build` under `configuration`; `sessionProxy` is the proxy the session
    /// uses (its configuration's, with the environment read when it was made). `revealing`
    /// shows the secrets as they are sent.
    /// The HTTP version, time limits and redirect policy as curl flags. HTTP/2 over TLS is
    /// curl's own default and prints nothing; the idle timeout has no curl flag (curl's nearest,
    /// `--speed-time`, is a different rule) and does not print; a custom redirect decision
    /// prints its maximum and a note.
    static func behaviourArguments(
        _ options: RequestOptions, _ configuration: SessionConfiguration, unprintable: inout [String]
    ) -> [String] {
        var parts: [String] = []
        switch options.httpVersion ?? configuration.httpVersion {
        case .http1_1: parts.append("--http1.1")
        case .http2OverTLS: break
        case .http2PriorKnowledge: parts.append("--http2-prior-knowledge")
        }
        let timeouts = options.timeouts.merged(over: configuration.timeouts)
        if let connect = timeouts.connect { parts += ["--connect-timeout", curlSeconds(connect)] }
        if let total = timeouts.total { parts += ["--max-time", curlSeconds(total)] }
        if let speed = timeouts.minimumSpeed {
            parts += ["--speed-limit", "\(speed.bytesPerSecond)", "--speed-time", "\(speed.curlSeconds)"]
        }
        switch (options.redirectPolicy ?? configuration.redirectPolicy).mode {
        case .none: break
        case .follow(let maximum): parts += ["-L", "--max-redirs", "\(maximum)"]
        case .custom(let maximum, _):
            parts += ["-L", "--max-redirs", "\(maximum)"]
            unprintable.append("a custom redirect decision")
        }
        return parts
    }

    /// A duration as curl's decimal seconds: `30`, `0.5`, `2.25` (to the millisecond, at least 1 ms).
    static func curlSeconds(_ duration: Duration) -> String {
        let milliseconds = duration.curlMilliseconds
        guard milliseconds % 1000 != 0 else { return "\(milliseconds / 1000)" }
        var text = String(format: "%d.%03d", milliseconds / 1000, milliseconds % 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    static func describe(
        _ build: Result<OutgoingRequest, CurlewError>, configuration: SessionConfiguration, sessionProxy: ProxyConfiguration,
        revealingSecrets revealing: Bool = false
    ) -> String {
        guard case .success(let request) = build else {
            if case .failure(let error) = build { return "# invalid request: \(error)" }  // Redacted by CurlewError.
            return "# invalid request"
        }
        let socket: UnixSocketRoute?
        do {
            socket = try UnixSocketRoute.resolve(request)
        } catch {
            return "# invalid request: \(error)"
        }
        var parts = ["curl"]
        if let socket { parts += ["--unix-socket", quote(socket.path)] }
        switch request.method {
        case .head: parts.append("--head")
        case .get: break
        default: parts += ["-X", quote(request.method.rawValue)]
        }
        if configuration.automaticDecompression { parts.append("--compressed") }
        var unprintable: [String] = []
        parts += behaviourArguments(request.options, configuration, unprintable: &unprintable)
        if !configuration.network.isDefault || request.options.connectTo != nil || request.options.ipVersion != nil {
            let network = NetworkControls.curlArguments(
                configuration.network, connectTo: request.options.connectTo ?? configuration.network.connectTo,
                ipVersion: request.options.ipVersion ?? configuration.network.ipVersion)
            parts += network.arguments
            unprintable += network.unprintable
        }
        if let weight = request.options.http2StreamWeight { unprintable.append("CURLOPT_STREAM_WEIGHT=\(weight)") }
        if let hsts = configuration.hsts {
            if let file = hsts.fileURL { parts += ["--hsts", quote(file.path)] } else { unprintable.append("CURLOPT_HSTS_CTRL=CURLHSTS_ENABLE (in memory)") }
        }
        if let services = configuration.alternativeServices {
            // curl's `--alt-svc ""` is Alt-Svc in memory; its tool allows every protocol it has.
            parts += ["--alt-svc", quote(services.store.fileURL?.path ?? "")]
            if services.protocols != [.http1, .http2] || !services.updatesStore {
                let names = AltSvcProtocol.allCases.filter { services.protocols.contains($0) }.map { "CURLALTSVC_\($0.rawValue.uppercased())" }
                unprintable.append("CURLOPT_ALTSVC_CTRL=" + (names + (services.updatesStore ? [] : ["CURLALTSVC_READONLYFILE"])).joined(separator: "|"))
            }
        }
        if configuration.httpsOnly { parts += ["--proto", quote("=https"), "--proto-redir", quote("=https")] }
        parts += trustArguments(configuration.trust.policy(forHost: request.url.host ?? "").policy, revealing: revealing)
        // curl uses no proxy for a Unix socket.
        // A selector's choice is printed for the request's URL (later hops may choose others).
        if socket == nil {
            let proxy = request.options.proxy ?? configuration.proxySelector?.proxy(for: request.url) ?? sessionProxy
            parts += proxyArguments(proxy, revealing: revealing)
        }
        if let credential = request.options.httpCredential ?? configuration.httpCredentials.credential(for: request.url) {
            // The password is not repeated unless asked for: `-u 'user:***'`.
            let password = revealing ? credential.password : Redaction.placeholder
            parts += ["-u", quote(credential.username + ":" + password), credential.method.curlFlag]
        }
        var fields = TransferContext.withSessionHeaders(
            request.headerFields, userAgent: configuration.userAgent, acceptLanguage: configuration.acceptLanguage,
            defaults: configuration.defaultHeaders)
        TransferContext.inferFileContentType(&fields, body: request.body)
        var shown = HTTPFields()
        for field in fields {
            // Credentials are not repeated unless asked for: the scheme stays, its token becomes `***`.
            shown.append(
                !revealing && Redaction.isSecretHeader(field.name)
                    ? HTTPField(name: field.name, value: Redaction.headerValue(field)) : field)
        }
        // The lines as libcurl gets them: all cookies in one `Cookie` line.
        for line in TransferContext.curlHeaderLines(shown) { parts += ["-H", quote(line)] }
        // As on the wire: no form type that the request did not ask for (curl, as libcurl, adds one).
        if TransferContext.suppressesFormContentType(request, fields: fields) { parts += ["-H", quote("Content-Type:")] }
        // A POST without a body goes with `Content-Length: 0`, as curl sends it for empty data.
        if request.body == nil, request.method == .post { parts += ["--data-binary", quote("")] }
        if let body = request.body {
            switch body.storage {
            case .data(let sent):
                let data = revealing ? sent : Redaction.body(
                    sent, contentType: fields[.contentType], secrets: Redaction.secretFieldNames, placeholder: Redaction.placeholder)
                if let text = String(data: data, encoding: .utf8), !text.contains("\0") {
                    parts += ["--data-binary", quote(text)]
                } else {
                    parts += ["--data-binary", quote("@-"), "# \(data.count) binary bytes not shown"]
                }
            case .file(let url): parts += ["--data-binary", quote("@" + url.path)]
            case .stream: parts += ["--data-binary", quote("@-"), "# streamed body not shown"]
            }
        }
        let url = socket.flatMap { URL(string: $0.curlURL) } ?? request.url
        parts.append(quote(revealing ? url.absoluteString : Redaction.string(url)))
        // What the curl tool has no flag for, after the URL so the command still runs.
        if !unprintable.isEmpty { parts.append("# libcurl only: " + unprintable.joined(separator: " ")) }
        return parts.joined(separator: " ")
    }

    /// Single-quotes `text`; a single quote inside becomes `'\''`.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
