import ArgumentParser
import Curlew
import Logging
import Foundation

/// `--pretty`: what is done to the output.
enum PrettyMode: String, ExpressibleByArgument, CaseIterable {
    case all, colors, format, none
}

/// `--auth-type`.
enum AuthType: String, ExpressibleByArgument, CaseIterable {
    case basic, digest, bearer
}

/// Every option of `curlew`, grouped as `--help` shows them.
struct ClientOptions: ParsableArguments {
    // MARK: Request body

    @Flag(name: [.customShort("j"), .long], help: "Data fields as a JSON object (the default); sets Accept and Content-Type to JSON.")
    var json = false

    @Flag(name: [.customShort("f"), .long], help: "Data fields as a URL-encoded form (application/x-www-form-urlencoded).")
    var form = false

    @Flag(help: "Data fields as multipart/form-data (implied by a field@file item).")
    var multipart = false

    @Flag(name: [.customShort("I"), .long], help: "Do not read the request body from standard input.")
    var ignoreStdin = false

    // MARK: Output

    @Option(help: "all (colours and formatting), colors, format or none. Default: all on a terminal, none when piped.")
    var pretty: PrettyMode?

    @Option(name: [.customShort("p"), .long], help: "What to print: H request headers, B request body, h response headers, b response body. Default: hb on a terminal, b when piped.")
    var print: String?

    @Flag(name: .long, help: "Print the response headers only (--print=h).")
    var headers = false

    @Flag(name: [.customShort("b"), .long], help: "Print the response body only (--print=b).")
    var body = false

    @Flag(name: [.customShort("v"), .long], help: "Print the request as sent and the response (--print=HBhb), and the timing waterfall on standard error.")
    var verbose = false

    @Flag(help: "Exit with 3, 4 or 5 for a 3xx, 4xx or 5xx response (see EXIT STATUS).")
    var checkStatus = false

    @Flag(help: "Print the request as a curl command (secrets as ***) and exit without sending it.")
    var curl = false

    @Option(help: "Select from a JSON response body, such as a.b[0].c.")
    var jqPath: String?

    @Option(help: "Select from an XML response body with an XPath expression (matching nodes, or the value).")
    var xpath: String?

    @Flag(name: [.customShort("S"), .long], help: "Print the body as it arrives, a record at a time (NDJSON, server-sent events, lines).")
    var stream = false

    // MARK: Downloads

    @Flag(name: [.customShort("d"), .long], help: "Save the body to a file (named by Content-Disposition or the URL, or --output), with progress on standard error.")
    var download = false

    @Flag(name: [.customShort("c"), .customLong("continue")], help: "With --download and --output: resume a partial file (Range), append to it.")
    var resume = false

    @Option(name: [.customShort("o"), .long], help: "The file to write: the download, or what would go to standard output.")
    var output: String?

    // MARK: Connection

    @Option(help: "Seconds to wait to connect and between bytes (exit 2 when exceeded).")
    var timeout: Double?

    @Flag(name: [.customShort("F"), .long], help: "Follow redirects.")
    var follow = false

    @Option(help: "With --follow: the most redirects (exit 6 beyond). Default 30.")
    var maxRedirects: Int = 30

    @Flag(name: .customLong("http1.1"), help: "Use HTTP/1.1 only.")
    var http1 = false

    @Flag(name: .customLong("http2"), help: "Use HTTP/2 over TLS when the server offers it.")
    var http2 = false

    @Option(help: "Trust only the certificate authorities in this PEM file.")
    var cacert: String?

    @Option(help: "Pin the server's public key: sha256//BASE64 (curl's --pinnedpubkey form). Repeatable.")
    var pin: [String] = []

    @Flag(name: [.customShort("k"), .long], help: "Do not check the server's certificate at all (a warning is printed).")
    var insecure = false

    @Option(help: "Use this proxy: http://[user:pass@]host:port, https://…, socks5://…, socks5h://… (default: the environment's, never for loopback).")
    var proxy: String?

    // MARK: Authentication

    @Option(name: [.customShort("a"), .long], help: "user:password (or the token with --auth-type bearer).")
    var auth: String?

    @Option(name: [.customShort("A"), .long], help: "basic (default), digest or bearer.")
    var authType: AuthType = .basic

    @Option(help: "Send Authorization: Bearer TOKEN.")
    var bearer: String?

    @Option(help: "Keep cookies and the headers given here between runs, in ~/.config/curlew/sessions/NAME (mode 0600).")
    var session: String?

    @Option(help: "An OAuth2 token file (JSON: access_token, refresh_token, expires_at, token_url, client_id, client_secret); refreshed and rewritten (0600).")
    var oauth2: String?

    @Flag(help: "Print the wire trace on standard error: request and response heads as sent and received (secrets as ***), connection and TLS notes, body byte counts.")
    var trace = false

    @Option(help: "Append the exchange (each redirect hop an entry, secrets as ***, no bodies) to this HAR 1.2 file, created with mode 0600.")
    var har: String?

    func validate() throws {
        let bodyStyles = [json, form, multipart].filter { $0 }.count
        if bodyStyles > 1 { throw ValidationError("choose one of --json, --form, --multipart") }
        if http1 && http2 { throw ValidationError("choose one of --http1.1 and --http2") }
        if let timeout, !(timeout > 0 && timeout.isFinite) { throw ValidationError("--timeout must be a positive number of seconds") }
        if maxRedirects < 0 { throw ValidationError("--max-redirects must be 0 or more") }
        if resume && (!download || output == nil) { throw ValidationError("--continue needs --download and --output") }
        if insecure && (cacert != nil || !pin.isEmpty) { throw ValidationError("--insecure cannot be combined with --cacert or --pin") }
        if bearer != nil && auth != nil { throw ValidationError("choose one of --auth and --bearer") }
        if oauth2 != nil && (bearer != nil || auth != nil) { throw ValidationError("--oauth2 cannot be combined with --auth or --bearer") }
        if stream && download { throw ValidationError("choose one of --stream and --download") }
        if jqPath != nil && xpath != nil { throw ValidationError("choose one of --jq-path and --xpath") }
    }

    /// The body style the flags ask for.
    var bodyStyle: RequestPlan.BodyStyle {
        form ? .form : multipart ? .multipart : .json
    }

    /// The session configuration the options describe (trust, proxy, timeouts, redirects).
    func sessionConfiguration() throws(CommandLineError) -> SessionConfiguration {
        var configuration = SessionConfiguration()
        configuration.userAgent = "curlew/\(CurlewCommand.version)"
        configuration.usesDefaultValidation = false
        if let timeout {
            let limit = Duration.milliseconds(Int64((timeout * 1000).rounded(.up)))
            configuration.timeouts = Timeouts(connect: limit, total: nil, idle: limit)
        }
        configuration.redirectPolicy = follow ? .follow(maximum: maxRedirects) : .doNotFollow
        if http1 { configuration.httpVersion = .http1_1 }
        if http2 { configuration.httpVersion = .http2OverTLS }
        if let policy = try trustPolicy() { configuration.trust = TrustConfiguration(default: policy) }
        if let proxy { configuration.proxy = try Self.proxyConfiguration(proxy) }
        if trace {
            let logger = Logger(label: "curlew.trace") { _ in TraceLogHandler() }
            configuration.wireTrace = WireTrace(logger: logger, level: .debug)
        }
        if har != nil { configuration.eventMonitors.append(HARAppender.recorder) }
        return configuration
    }

    private func trustPolicy() throws(CommandLineError) -> TrustPolicy? {
        if insecure { return .insecureNoEvaluation(reason: "curlew --insecure") }
        var authorities: [CertificateSource] = []
        if let cacert {
            _ = try InputFile.read(cacert, for: "--cacert")
            authorities = [.file((cacert as NSString).expandingTildeInPath)]
        }
        if !pin.isEmpty {
            for key in pin where !key.hasPrefix("sha256//") {
                throw CommandLineError("--pin '\(key)': expected sha256//BASE64 (openssl's public key hash)")
            }
            let pinned = TrustPolicy.publicKeys(pin)
            return authorities.isEmpty ? pinned : pinned.validatingChain(against: authorities)
        }
        return authorities.isEmpty ? nil : .certificateAuthorities(authorities)
    }

    /// `scheme://[user:password@]host:port` as a proxy; the port defaults to 1080 for SOCKS,
    /// 443 for https and 3128 otherwise, as curl does.
    static func proxyConfiguration(_ text: String) throws(CommandLineError) -> ProxyConfiguration {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { throw CommandLineError("--proxy '\(text)': malformed proxy URL") }
        guard let kind = ProxyConfiguration.Kind(rawValue: scheme) else {
            throw CommandLineError("--proxy '\(text)': unknown scheme '\(scheme)' (http, https, socks4, socks4a, socks5, socks5h)")
        }
        let port = components.port ?? (scheme.hasPrefix("socks") ? 1080 : scheme == "https" ? 443 : 3128)
        let hostName = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return .explicit(
            kind, host: hostName, port: port,
            username: components.user?.removingPercentEncoding, password: components.password?.removingPercentEncoding)
    }
}
