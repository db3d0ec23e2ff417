// Generated from the ```swift blocks of README.md by ReadmeSnippetTests: do not edit.
// Regenerate with `scripts/readme-snippets.sh`. Compiled, never run; placeholders are in Prelude.swift.
// swift-format-ignore-file

import CoreMetrics
import Curlew
import CurlewOpenAPI
import CurlewTesting
import CurlewXML
import Foundation
import HTTPTypes
import Logging
import Synchronization
import Tracing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// ## Using it, block 1: a Package.swift fragment, not compiled.

// ## Using it, block 2
enum ReadmeBlock02 {
    static func run() async throws {
    }
}

// ### Await a typed value, block 3
enum ReadmeBlock03 {
    static func run() async throws {
        let session = Session()                     // an actor; Session.shared also exists

        let user = try await session.request("https://api.example.com/users/42")
            .validate()                             // 200..<300, and Content-Type vs Accept
            .decode(User.self)

        let text = try await session.request(url).string()      // charset from Content-Type
        let data = try await session.request(url).data()
        let response = try await session.request(url).response  // head, body, metrics, redirects
        print(response.status, response.metrics.httpVersion, response.metrics.total)
        _ = (session, user, text, data, response)
    }
}

// ### Await a typed value, block 4
enum ReadmeBlock04 {
    static func run() async throws {
        switch await session.request(url).validate().dataResult() {            // Result<Data, CurlewError>
        case .success(let body): print(body.count)
        case .failure(let error): print(error.kind, error.status?.code ?? 0)
        }
        let user = await session.request(userURL).decodeResult(User.self)   // Result<User, CurlewError>
        let whole = await session.request(url).serializedResult(by: .string)    // Result<Response<String>, CurlewError>
        _ = (user, whole)
    }
}

// ### Validating every request, block 5
enum ReadmeBlock05 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        configuration.usesDefaultValidation = true
        let api = Session(configuration: configuration)

        _ = try await api.request(url).data()                           // a 404 throws unacceptableStatus
        let page = try await api.request(url).skipDefaultValidation().response    // a 404 is a response
        let body = try await api.request(url).skipDefaultValidation().validate(statusCode: [200, 404]).data()
        _ = (configuration, api, page, body)
    }
}

// ### Build a request, block 6
enum ReadmeBlock06 {
    static func run() async throws {
        let created = try await session.request(
            "https://api.example.com/users", method: .post,
            headers: ["Content-Type": "application/json"],         // validated: CR/LF is an error
            body: .data(try JSONEncoder().encode(NewUser(name: "Ann")))
        ).validate(statusCode: 200..<300).serialized(by: .decodable(User.self))

        // Bodies: .data, .string, .file(url) (streamed from disk), .stream(asyncSequence, length:)
        // Per-request options:
        var options = RequestOptions()
        options.timeouts = Timeouts(connect: .seconds(5), total: .seconds(30), idle: .seconds(10))
        options.redirectPolicy = .follow(maximum: 3)           // or .doNotFollow, or .custom { hop, next in … }
        options.maximumBodySize = 10 << 20
        let r = session.request(url, options: options)

        // From Foundation, for code arriving from URLSession or Alamofire:
        let converted = session.request(URLRequest(url: url))
        _ = (created, options, r, converted)
    }
}

// ### Parameters and encoders, block 7
enum ReadmeBlock07 {
    static func run() async throws {
        // URL form: the query for GET/HEAD/DELETE, the body otherwise. Keys sorted, RFC 3986 escaping.
        let search = session.request(url, parameters: ["q": "curl & swift", "page": 2])
        let create = session.request(url, method: .post, parameters: NewUser(name: "Ann"), encoder: .json)
        let filter = session.request(url, method: .post, parameters: query, encoder: .urlEncodedForm(destination: .query))
        let save = session.request(url, method: .put, parameters: settings, encoder: .propertyList(format: .binary))

        // Several parameter sets on one request: URL parameters in the query and JSON in the body.
        let mixed = session.request(Endpoint(url, method: .post).with(parameters: [
            ParameterSet(["page": 3], encoding: .query),
            ParameterSet(["name": "Ann"], encoding: .json),
        ]))

        // Multipart: in memory below 10 MiB, streamed from files and streams above it.
        var form = MultipartFormData()
        try form.append("Ann", withName: "name")
        try form.append(fileAt: videoURL, withName: "video")          // MIME type from the extension
        try form.append(withName: "log", fileName: "build.log") { chunks }  // unknown length: sent chunked
        let upload = session.upload(.multipart(form), to: url)  // progress in upload.events
        _ = (search, create, filter, save, mixed, form, upload)
    }
}

// ### Requests as values: endpoints and routers, block 8
enum ReadmeBlock08 {
    static func run() async throws {
        let api = Endpoint("https://api.example.com/v1")
            .with(header: "Accept", value: "application/json")
            .with(interceptors: [AccessToken(store: tokens)])     // runs after the session's interceptors
            .with(timeouts: Timeouts(connect: .seconds(5)))

        let search = Endpoint("search", base: api)             // https://api.example.com/v1/search
            .with(parameters: ["q": "curl", "page": 2], encoding: .query)
            .with(cookie: "SESSION_ID", value: sessionID)
            .with(timeouts: Timeouts(total: .seconds(10)))                       // a deadline for the whole request
        let results = try await session.request(search).validate().decode([Repository].self)
        _ = (api, search, results)
    }
}

// ### Requests as values: endpoints and routers, block 9
enum ReadmeBlock09 {
    enum NotesAPI: EndpointConvertible {
        case notes(page: Int), note(id: Int), create(NewNote), delete(id: Int)

        static let base = Endpoint("https://notes.example.com/api/v1")
            .with(header: "Accept", value: "application/json")
            .with(interceptors: [AccessToken(token: token)])

        func asEndpoint() throws -> Endpoint {
            switch self {
            case .notes(let page): Endpoint("notes", base: Self.base).with(parameters: ["page": page], encoding: .query)
            case .note(let id): Endpoint("notes/\(id)", base: Self.base).with(header: "X-Case", value: "note")
            case .create(let note): Endpoint("notes", base: Self.base, method: .post).with(parameters: note, encoder: .json)
            case .delete(let id): Endpoint("notes/\(id)", base: Self.base, method: .delete)
            }
        }
    }

    static func run() async throws {
        let notes = try await session.request(NotesAPI.notes(page: 2)).validate().decode([Note].self)
        let receipt = try await session.upload(.file(photo), to: NotesAPI.note(id: 7)).validate().data()
        _ = (notes, receipt)
    }
}

// ### Response serializers, block 10
enum ReadmeBlock10 {
    static func run() async throws {
        let raw    = try await request.data()
        let text   = try await request.string()
        let user   = try await request.decode(User.self)                          // JSONDecoder
        let json   = try await request.serialized(by: .json).value                // untyped JSON value
        print(json["user"]["name"].string ?? "")
        let plist  = try await request.serialized(by: .propertyList).value
        let users  = try await request.serialized(by: .collection(of: User.self, keyPath: "data.items")).value
        let lossy  = try await request.serialized(by: .lossyCollection(of: User.self)).value
        print(lossy.failures)                                                      // which elements failed, and why
        let clean  = try await request.serialized(by: .decodable(User.self).preprocessed(by: .xssi)).value
        _ = (raw, text, user, json, plist, users, lossy, clean)
    }
}

// ### Response serializers, block 11
enum ReadmeBlock11 {
    struct LineCount: ResponseSerializer {
        func serialize(_ response: Response<Data>) throws -> Int {
            response.value.split(separator: UInt8(ascii: "\n")).count
        }
    }

    static func run() async throws {
    }
}

// ### Response serializers, block 12
enum ReadmeBlock12 {
    struct APIProblem: Decodable, Error { let code: String; let message: String }

    static func run() async throws {
        do { _ = try await session.request(url).validate(errorType: APIProblem.self).data() }
        catch { print(error.status?.code ?? 0, error.apiError(as: APIProblem.self)?.message ?? "", error.responseJSON) }
    }
}

// ### XML through libxml2 (`import CurlewXML`), block 13
enum ReadmeBlock13 {
    struct RSSFeedSerializer: XMLSerializer {              // your own XML serializer
        func serialize(_ document: XMLTree, head: HTTPResponse) throws -> Feed {
            Feed(title: try document.string(for: "/rss/channel/title"),
                 items: try document.nodes(matching: "//item/title").map(\.text))
        }
    }

    static func run() async throws {
        let document = try await session.request(feedURL).serialized(by: .xmlDocument).value
        let titles = try document.nodes(matching: "//a:entry/a:title", namespaces: ["a": "http://www.w3.org/2005/Atom"]).map(\.text)

        let feed = try await session.request(rssURL).serialized(by: .xml(RSSFeedSerializer())).value
        let catalog = try await session.request(url).serialized(by: .xmlDecodable(Catalog.self)).value
        _ = (document, titles, feed, catalog)
    }
}

// ### Streaming decoders (bounded memory), block 14
enum ReadmeBlock14 {
    static func run() async throws {
        for try await entry in session.request(logURL).decodeStream(LogEntry.self, framing: .jsonLines) { print(entry) }
        for try await line in session.request(url).lines { print(line) }
        for try await event in session.request(sseURL).serverSentEvents { print(event.event, event.data) }
        for try await item in session.request(bigXML).bytes.xmlElements(named: "item") { print(item.text) }  // CurlewXML
    }
}

// ### Events: progress, head, completion, block 15
enum ReadmeBlock15 {
    static func run() async throws {
        for try await event in session.download(isoURL, to: .directory(dir)).events {
            switch event {
            case .uploadProgress(let p), .downloadProgress(let p):
                print(p.fractionCompleted, p.bytesPerSecond, p.estimatedTimeRemaining ?? .zero)
            case .response(let head): print(head.status)
            case .suspended, .resumed: print(event)
            case .completed(let done): print(done.fileURL?.path ?? "", done.metrics.total)
            case .wireTrace(let record): print(record)  // only when the request is traced (WireTrace)
            }
        }
    }
}

// ### Uploads, block 16
enum ReadmeBlock16 {
    static func run() async throws {
        let receipt = try await session.upload(.data(png), to: avatarURL, method: .put).validate().decode(Receipt.self)
        _ = try await session.upload(.file(backup), to: storeURL).validate().data() // read from disk as sent, typed by extension
        _ = try await session.upload(.stream(chunks, length: size), to: ingestURL).validate().data() // any AsyncSequence of bytes
        _ = try await session.upload(.inputStream(inputStream), to: legacyURL).validate().data()    // Foundation's InputStream

        for try await case .uploadProgress(let p) in session.upload(.file(backup), to: storeURL).events {
            print(p.completedBytes, "of", p.totalBytes ?? -1)
        }
        _ = (receipt)
    }
}

// ### Uploads, block 17
enum ReadmeBlock17 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        configuration.expectContinue = .bodies(largerThan: 8 << 20, timeout: .milliseconds(500))
        var options = RequestOptions()
        options.expectContinue = .always()                    // per request; .never, .largeBodies (libcurl's rule)
        _ = (configuration, options)
    }
}

// ### Stream a body with backpressure, block 18
enum ReadmeBlock18 {
    static func run() async throws {
        for try await chunk in session.request(logURL).validate().bytes {
            try await sink.write(chunk)      // while this is slow, libcurl is paused; memory stays bounded
        }
    }
}

// ### Downloads, block 19
enum ReadmeBlock19 {
    static func run() async throws {
        let file = try await session.download(url, to: .file(target, options: [.createIntermediateDirectories, .removePreviousFile]))
            .validate().fileURL()

        let scratch = try await session.download(url).fileURL()          // a temporary file that is yours
        let report = try await session.download(reportURL, to: .directory(dir))
            .validate(contentType: ["application/json"])
            .decode(Report.self)                                           // reads the finished file
        _ = (file, scratch, report)
    }
}

// ### Resuming downloads, block 20
enum ReadmeBlock20 {
    static func run() async throws {
        let download = session.download(isoURL, to: .file(target))
        let transfer = Task { try await download.fileURL() }              // consuming it starts it
        // …later, on the user's request (or after a failure: `error.downloadResumeData`):
        if let resumeData = await download.cancel(producingResumeData: true) {
            try JSONEncoder().encode(resumeData).write(to: saved)          // survives a restart
        }
        _ = await transfer.result                                          // failed with `.cancelled`
        // …then, perhaps in another process:
        let resumeData = try JSONDecoder().decode(DownloadResumeData.self, from: Data(contentsOf: saved))
        let file = try await session.download(resumingWith: resumeData, to: .file(target)).validate().fileURL()
        _ = (download, transfer, resumeData, file)
    }
}

// ### Resuming downloads, block 21
enum ReadmeBlock21 {
    static func run() async throws {
        var policy = RetryPolicy.default
        policy.resumesDownloads = true
        let session = Session(interceptors: [policy])
        _ = (policy, session)
    }
}

// ### Suspend and resume, block 22
enum ReadmeBlock22 {
    static func run() async throws {
        let download = session.download(isoURL, to: .directory(dir))
        download.suspend()        // before the start: it starts only once resumed
        Task { try await download.fileURL() }
        // …
        download.resume()
        _ = (download)
    }
}

// ### Session configuration, block 23
enum ReadmeBlock23 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        configuration.timeouts = Timeouts(connect: .seconds(10), total: nil, idle: .seconds(30))
        configuration.maximumConnectionsPerHost = 8
        configuration.trust = TrustConfiguration(default: .certificateAuthorities([.file("/etc/my-ca.pem")]))
        configuration.logger = Logger(label: "http")          // nothing is logged without one
        let session = Session(configuration: configuration)

        let body = try await withSession { session in           // shuts the session down afterwards
            try await session.request(url).data()
        }
        await session.shutdown()                               // fails in-flight requests, joins the thread
        _ = (configuration, session, body)
    }
}

// ### Trust: certificate authorities, pinning, fingerprints, client certificates, block 24
enum ReadmeBlock24 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(
            default: .systemTrust,
            hosts: [
                // A public key (SPKI SHA-256, curl's --pinnedpubkey form), chain validated as well.
                .exact("api.example.com"): .publicKeys(["sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="]),
                // A private CA only, TLS 1.3, and a client certificate (mTLS).
                .wildcard("*.corp.example"): TrustPolicy.certificateAuthorities([.file("/etc/corp/ca.pem")])
                    .minimumTLSVersion(.v1_3)
                    .clientCertificate(.pkcs12(file: "/etc/corp/me.p12", passphrase: secret)),
                // A pinned key on a server whose chain ends at a private CA: the chain is validated
                // against that CA, not the system's (without it, the system would refuse the chain).
                .exact("billing.corp.example"): TrustPolicy.publicKeys(["sha256//4Fq8qeFhb1tNvQdKo+0Zt4a3nR0rT2CqB0xq8Eu1nZk="])
                    .validatingChain(against: [.file("/etc/corp/ca.pem")]),
                // A self-signed device, known by its leaf fingerprint as openssl prints it.
                .exact("192.168.1.20"): .fingerprints([.sha256("AB:CD:…:EF")], validateChain: false),
                .domainAndSubdomains("lab.test"): .custom { trust in
                    trust.certificates.count > 1 ? .trust : .reject(reason: "no intermediate")
                },
            ])
        _ = (configuration)
    }
}

// #### TLS parameters and what a connection was, block 25
enum ReadmeBlock25 {
    static func run() async throws {
        var parameters = TLSParameters()
        parameters.tls13CipherSuites = ["TLS_AES_256_GCM_SHA384"]       // CURLOPT_TLS13_CIPHERS, --tls13-ciphers
        parameters.cipherSuites = ["ECDHE-RSA-AES256-GCM-SHA384"]       // TLS 1.2: CURLOPT_SSL_CIPHER_LIST, --ciphers
        parameters.keyExchangeGroups = ["X25519", "P-384"]              // CURLOPT_SSL_EC_CURVES, --curves
        parameters.requiresOCSPStapling = true                          // CURLOPT_SSL_VERIFYSTATUS, --cert-status
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(default: TrustPolicy.systemTrust.tlsParameters(parameters))
        configuration.capturesPeerCertificates = true                  // off by default

        let session = Session(configuration: configuration)
        let response = try await session.request("https://example.com").response
        if let tls = response.metrics.tls {
            print(tls.protocolVersion, tls.cipherSuite, tls.keyExchangeGroup ?? "?", tls.applicationProtocol ?? "no ALPN")
            for certificate in tls.peerCertificates {                   // leaf first, as the server sent them
                print(certificate.subject, certificate.notValidAfter, certificate.sha256)
            }
        }
        _ = (parameters, configuration, session, response)
    }
}

// ### Proxies, block 26
enum ReadmeBlock26 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        configuration.proxy = .direct                          // ignore the environment
        configuration.proxy = .explicit(.http, host: "proxy.internal", port: 3128,
                                        username: "svc", password: secret,
                                        bypassing: ["metadata.internal", "10.0.0.0/8"])
        configuration.proxy = .explicit(.socks5h, host: "127.0.0.1", port: 1080)  // also .socks4(a), .socks5, .https
        // An HTTPS proxy (TLS to the proxy itself), trusted by its own policy:
        configuration.proxy = .explicit(.https, host: "proxy.internal", port: 3129,
                                        trust: .certificateAuthorities([.file("/etc/corp/proxy-ca.pem")]))

        var options = RequestOptions()
        options.proxy = .direct                                // per request, over the session's
        _ = (configuration, options)
    }
}

// ### Proxies, block 27
enum ReadmeBlock27 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        configuration.proxy = .explicit(.http, host: "proxy.corp", port: 3128,
                                        username: "svc", password: secret, authentication: .digest)
        _ = (configuration)
    }
}

// ### Proxies, block 28
enum ReadmeBlock28 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        configuration.proxySelector = ProxySelector { url in
            switch url.host {
            case "wiki.corp"?: .direct
            case let host? where host.hasSuffix(".onion"): .explicit(.socks5h, host: "127.0.0.1", port: 9050)
            default: .explicit(.http, host: "proxy.corp", port: 3128)
            }
        }
        _ = (configuration)
    }
}

// ### Unix-domain sockets, block 29
enum ReadmeBlock29 {
    static func run() async throws {
        // Docker Engine API: the socket's path, percent-encoded, is the host.
        let containers = try await session.request("http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/containers/json")
            .validate().decode([Container].self)

        var options = RequestOptions()
        options.unixSocketPath = "/run/user/1000/podman/podman.sock"   // any http(s) URL, over a socket
        let info = try await session.request("http://d/v4.0.0/libpod/info", options: options).data()
        _ = (containers, options, info)
    }
}

// ### WebSockets, block 30
enum ReadmeBlock30 {
    static func run() async throws {
        let socket = try await session.webSocket("wss://chat.example.com/room/1", protocols: ["chat.v1"])
        try await socket.send(text: "hello")
        try await socket.send(data: Data([1, 2, 3]))
        for try await message in socket.messages {
            switch message {
            case .text(let text): print(text)
            case .binary(let data): print(data.count, "bytes")
            }
        }
        await socket.close(code: .normalClosure, reason: "bye")
        _ = (socket)
    }
}

// ### Network controls: DNS overrides, DNS over HTTPS, IPv4/IPv6, connection age, local binding, block 31
enum ReadmeBlock31 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        // Connect to 127.0.0.1 for api.test:8443; the request still says Host: api.test:8443 (and TLS checks that name).
        configuration.network.hostAddresses[HostAndPort("api.test", port: 8443)] = ["127.0.0.1", "::1"]
        // Connect to another host and port for one: `Host` and TLS still name api.test:443.
        configuration.network.connectTo[HostAndPort("api.test", port: 443)] = HostAndPort("10.0.0.7", port: 8443)
        configuration.network.ipVersion = .ipv4Only                       // .any (default), .ipv4Only, .ipv6Only
        configuration.network.happyEyeballsDelay = .milliseconds(100)      // libcurl's default: 200 ms
        configuration.network.dnsCacheLifetime = .seconds(10)              // .zero caches nothing; default 60 s
        configuration.network.maximumConnectionIdleTime = .seconds(30)     // pooled connections; default 118 s
        configuration.network.maximumConnectionLifetime = .seconds(300)    // default: no limit
        configuration.network.outgoingInterface = .interface("eth0")       // or .host("192.0.2.10"), .name("eth0")
        configuration.network.localPorts = 40000...40099                   // source ports, tried in order
        // Resolve names at a DNS-over-HTTPS server (RFC 8484) instead of the system's resolver.
        configuration.network.dnsOverHTTPS = DNSOverHTTPS(url: URL(string: "https://dns.example/dns-query")!)

        var options = RequestOptions()                                     // per request, over the session's:
        options.connectTo = [HostAndPort("api.test", port: 443): HostAndPort("10.0.0.8", port: 443)]
        options.ipVersion = .ipv6Only
        _ = (configuration, options)
    }
}

// ### The connection pool: what it holds, closing idle connections, block 32
enum ReadmeBlock32 {
    static func run() async throws {
        let pool = await session.connectionPool()
        for connection in pool.connections {
            // e.g. "api.example 443 HTTP/2 tls idle" or "... busy" (activeTransfers: streams on it)
            print(connection.host ?? "?", connection.port ?? 0, connection.httpVersion.rawValue,
                  connection.usesTLS == true ? "tls" : "plain", connection.state, connection.activeTransfers)
        }
        let closed = await session.closeIdleConnections()  // e.g. after a network change
        print("closed \(closed.connections.count) idle connections")
        _ = (pool, closed)
    }
}

// ### HSTS and HTTPS-only sessions, block 33
enum ReadmeBlock33 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        // Hosts that sent Strict-Transport-Security over verified HTTPS are only ever asked over HTTPS;
        // the file (curl's HSTS format, mode 0600) keeps them between runs. HSTSStore() stays in memory.
        configuration.hsts = try HSTSStore(
            fileURL: URL(fileURLWithPath: "/var/cache/myapp/hsts.txt"),
            entries: [try HSTSEntry(host: "api.example.com", includesSubdomains: true)])  // preloaded, never lapses
        configuration.httpsOnly = true   // any plain-HTTP request or redirect hop fails with .unsupportedScheme
        _ = (configuration)
    }
}

// ### Alt-Svc (alternative services), block 34
enum ReadmeBlock34 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        // An HTTPS origin that answered `Alt-Svc: h2=":8443"` is reached at port 8443 over HTTP/2 by
        // later requests; the file (curl's Alt-Svc format, mode 0600) keeps what was learned between
        // runs. AltSvcStore() stays in memory.
        configuration.alternativeServices = AlternativeServices(
            store: try AltSvcStore(fileURL: URL(fileURLWithPath: "/var/cache/myapp/alt-svc.txt")),
            protocols: [.http2])  // the alternatives' protocols; HTTP/1.1 and HTTP/2 by default
        _ = (configuration)
    }
}

// ### HTTP authentication, block 35
enum ReadmeBlock35 {
    static func run() async throws {
        let report = try await session.request("https://api.example.com/report")
            .authenticate(username: "ann", password: secret)          // method: .any
            .validate()                                               // a refused login: 401 → unacceptableStatus
            .data()

        var configuration = SessionConfiguration()
        try configuration.httpCredentials.set(
            HTTPCredential(username: "svc", password: secret, method: .digest),
            for: URL(string: "https://api.example.com")!)             // scheme, host and port
        _ = (report, configuration)
    }
}

// ### Run a task on the session's thread, block 36
enum ReadmeBlock36 {
    static func run() async throws {
        try await withTaskExecutorPreference(session.taskExecutor) {
            for id in ids {
                let user = try await session.request("https://api.example.com/users/\(id)").decode(User.self)
                try await store(user)
            }
        }
        // or per child task: group.addTask(executorPreference: session.taskExecutor) { … }
    }
}

// ### Errors, block 37
enum ReadmeBlock37 {
    static func run() async throws {
        do {
            _ = try await session.request(url).validate().data()
        } catch {                                   // error: CurlewError
            if error.kind == .unacceptableStatus { print(error.status?.code ?? 0, error.responseBodyText ?? "") }
        }
    }
}

// ### Errors, block 38
enum ReadmeBlock38 {
    static func run() async throws {
        Task {
            do {
                _ = try await session.request(url).validate().data()
            } catch let error as CurlewError {      // the closure throws `any Error`: cast
                print(error.kind)
            } catch {
                print(error)                        // nothing else is thrown here, but Swift cannot know
            }
        }
    }
}

// ### Print a request: `print`, `debugPrint` and curl, block 39
enum ReadmeBlock39 {
    static func run() async throws {
        let request = session.request("https://ann:pw@api.example.com/users/42", headers: ["Authorization": "Bearer abc"])
        print(request)        // GET https://ann:***@api.example.com/users/42
        debugPrint(request)   // curl --compressed … -H 'Authorization: Bearer ***' -H 'User-Agent: Curlew/0.1.0 (Linux; …)' 'https://ann:***@api.example.com/users/42'
        let user = try await request.decode(User.self)
        print(request)        // GET https://ann:***@api.example.com/users/42 (200)
        // A failure says why: GET https://… (failed: connectionRefused), GET https://… (404, failed: unacceptableStatus)

        let response = try await request.response
        print(response)       // GET https://ann:***@api.example.com/users/42 (200)
        debugPrint(response)
        // [Request]: GET https://ann:***@api.example.com/users/42
        //     [Headers]:
        //         Authorization: Bearer ***
        //     [Body]: None
        // [Response]: 200 OK
        //     [Headers]:
        //         Content-Type: application/json
        //         Set-Cookie: sid=***; Path=/
        //     [Body]:
        //         {"id":42,"name":"Ann"}
        // [Network Duration]: 12.3 ms (HTTP/2, reused connection)
        _ = (request, user, response)
    }
}

// ### Print a request: `print`, `debugPrint` and curl, block 40
enum ReadmeBlock40 {
    static func run() async throws {
        let command = request.cURLDescription(revealingSecrets: true)   // passwords, tokens and secret fields as sent
        _ = (command)
    }
}

// ## Interceptors, retries, OAuth2, cookies and logging, block 41
enum ReadmeBlock41 {
    static func run() async throws {
        let tagging = Interceptor.adapter { request, _ in
            var request = request
            request.headerFields[HTTPField.Name("X-Client")!] = "batch-importer"
            return request
        }
        let checking = Interceptor.response { response, _ in   // HTTPTransport-style response middleware
            guard response.head.headerFields[HTTPField.Name("X-Maintenance")!] == nil else {
                throw CurlewError(.validationFailed, "the API is in maintenance", url: response.url)
            }
            return response
        }
        let session = Session(interceptors: [tagging, checking, RetryPolicy.default])
        _ = (tagging, checking, session)
    }
}

// ### Turning failures into your own errors, block 42
enum ReadmeBlock42 {
    enum MyAppError: Error { case offline, server(code: Int, message: String) }
    struct ClarifyErrors: RequestInterceptor, ResponseInterceptor {
        struct APIError: Decodable { let code: Int; let message: String }

        // {"code": 500, "message": "Database error"} → MyAppError.server
        func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data> {
            guard response.status.code >= 400,
                  let body = try? JSONDecoder().decode(APIError.self, from: response.value) else { return response }
            throw MyAppError.server(code: body.code, message: body.message)
        }

        // A refused connection → MyAppError.offline; any other failure stays as it is.
        func intercept(_ failure: FailedAttempt, for session: Session) async throws {
            if failure.error.kind == .connectionRefused { throw MyAppError.offline }
        }
    }

    static func run() async throws {
        let api = Session(interceptors: [ClarifyErrors(), RetryPolicy.default])
        if case .failure(let error) = await api.request(url).dataResult(),
           let appError = error.underlying as? MyAppError { show(appError) }
        _ = (api)
    }
}

// ### Retrying with `RetryPolicy`, block 43
enum ReadmeBlock43 {
    static func run() async throws {
        let session = Session(interceptors: [RetryPolicy.default])      // 2 retries, 0.5 s × 2^n, 30 s cap

        var policy = RetryPolicy(retryLimit: 5, backoffScale: .milliseconds(200), maximumDelay: .seconds(10),
                                 deadline: .seconds(30))               // no retry may start after 30 s
        policy.retryableStatusCodes.insert(409)
        policy.retryableMethods.insert(.post)                           // only if your POSTs are idempotent

        let resilient = Session(interceptors: [RetryPolicy.connectionLostOnly()])  // only dropped connections
        _ = (session, policy, resilient)
    }
}

// ### Network reachability, block 44
enum ReadmeBlock44 {
    static func run() async throws {
        let monitor = try await ReachabilityMonitor()           // or ReachabilityMonitor.shared()
        print(monitor.currentPath)
        // satisfied (IPv4 and IPv6 default route; interfaces up with addresses: lo, eth0)

        for await path in monitor.paths() {                      // the current path, then each change
            print(path.isSatisfied ? "online" : "offline")
        }

        let api = await monitor.reachability(of: "api.example.com")   // resolves, asks the kernel's routes
        print(api)               // api.example.com: 192.0.2.7 via eth0 (gateway 10.0.0.1)
        _ = (monitor, api)
    }
}

// ### Network reachability, block 45
enum ReadmeBlock45 {
    static func run() async throws {
        var options = RequestOptions()
        options.waitsForConnectivity = .seconds(30)              // or SessionConfiguration.waitsForConnectivity
        let data = try await session.request(url, options: options).data()
        // offline for 30 s: CurlewError.Kind.notConnected, and nothing was sent

        let session = Session(interceptors: [OfflineRetrier(maximumWait: .seconds(60)), RetryPolicy.default])
        _ = (options, data, session)
    }
}

// ### OAuth2, block 46
enum ReadmeBlock46 {
    static func run() async throws {
        let saved = try await store.load()                      // an OAuth2Credential (Codable)
        let auth = OAuth2Authenticator(
            credential: saved,
            tokenURL: URL(string: "https://auth.example.com/oauth/token")!,
            clientID: "my-app",
            clientSecret: secret,                                // nil for a public client
            clientAuthentication: .basic,                        // or .body (client_secret_post)
            scope: .hosts(["api.example.com"]),                  // or .urlPrefixes([URL(string: "https://api.example.com/v2")!])
            onRefresh: { try await store.save($0) })             // persist rotated refresh tokens
        let api = Session(interceptors: [auth, RetryPolicy.default])

        let me = try await api.request("https://api.example.com/v2/me").validate().decode(User.self)
        _ = (saved, auth, api, me)
    }
}

// ### OAuth2, block 47
enum ReadmeBlock47 {
    struct APIKeyAuthenticator: Authenticator {
        func apply(_ key: APIKey, to request: inout OutgoingRequest) {
            request.headerFields[HTTPField.Name("X-API-Key")!] = key.value
        }
        func refresh(_ key: APIKey, for session: Session) async throws -> APIKey {
            try await session.uninterceptedRequest(rotateKeyRequest).decode(APIKey.self)
        }
    }

    static func run() async throws {
        let auth = AuthenticationInterceptor(authenticator: APIKeyAuthenticator(), credential: key,
                                             scope: .hosts(["api.example.com"]))
        _ = (auth)
    }
}

// ### HTTP cache, block 48
enum ReadmeBlock48 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        configuration.cache = try HTTPCache(
            memoryCapacity: 16 << 20,                       // bytes; least recently used go first
            diskCapacity: 256 << 20, directory: cachesURL)  // survives restarts
        let session = Session(configuration: configuration)

        let response = try await session.request(url).response
        print(response.cacheStatus as Any)   // .hit, .revalidated, .stale or .miss (nil without a cache)
        _ = (configuration, session, response)
    }
}

// ### Cookies, block 49
enum ReadmeBlock49 {
    static func run() async throws {
        let jar = try CookieJar(contentsOf: cookiesFile)         // or CookieJar() in memory only
        var configuration = SessionConfiguration()
        configuration.cookieStorage = jar
        let session = Session(configuration: configuration)
        // …
        try jar.save(to: cookiesFile)                            // JSON, written atomically, mode 0600
        _ = (jar, configuration, session)
    }
}

// ### Cookies, block 50
enum ReadmeBlock50 {
    static func run() async throws {
        var options = RequestOptions()
        options.cookieStorage = .storage(CookieJar())          // this user's jar; or .disabled
        let page = try await session.request(url, options: options).validate().data()
        _ = (options, page)
    }
}

// ### Cookies, block 51
enum ReadmeBlock51 {
    final class DatabaseCookies: CookieStorage {
        private let cache = Mutex<[Cookie]>([])              // loaded at start, kept current
        func cookies(forHost host: String) -> [Cookie] { cache.withLock { $0 } }   // may return more; Curlew filters
        func store(_ cookies: [Cookie], receivedFrom url: URL) {
            cache.withLock { cached in                       // replace by name, domain and path
                cached.removeAll { old in cookies.contains { ($0.name, $0.domain, $0.path) == (old.name, old.domain, old.path) } }
                cached += cookies.filter { ($0.expiresAt ?? .distantFuture) > Date() }
            }
            Task { await database.save(cookies) }            // never block: this runs on the session's thread
        }
    }

    static func run() async throws {
        var configuration = SessionConfiguration()
        configuration.cookieStorage = DatabaseCookies()
        _ = (configuration)
    }
}

// ### Observing and logging, block 52
enum ReadmeBlock52 {
    static func run() async throws {
        var configuration = SessionConfiguration()
        configuration.eventMonitors = [
            LoggingEventMonitor(logger: Logger(label: "api"), detail: .headers)   // .url, .headers or .everything
        ]
        _ = (configuration)
    }
}

// ### HAR export, block 53
enum ReadmeBlock53 {
    static func run() async throws {
        let recorder = HARRecorder(options: .init(recordsResponseBodies: true, maximumBodySize: 64 << 10))
        var configuration = SessionConfiguration()
        configuration.eventMonitors = [recorder]
        let session = Session(configuration: configuration)
        _ = try await session.request("https://api.example.com/v2/me").data()
        try recorder.write(to: URL(fileURLWithPath: "session.har"))   // atomic, mode 0600
        let entries = try HARArchive(contentsOf: URL(fileURLWithPath: "session.har")).log.entries
        _ = (recorder, configuration, session, entries)
    }
}

// ### Wire trace, block 54
enum ReadmeBlock54 {
    static func run() async throws {
        var traced = SessionConfiguration()
        traced.wireTrace = WireTrace(logger: Logger(label: "wire"))   // every request of the session
        var options = RequestOptions()
        options.wireTrace = WireTrace(includesBodyBytes: true)        // or one request; .off opts out
        for try await event in session.request(url, options: options).events {
            if case .wireTrace(let record) = event { print(record) }   // "> GET /v2/me HTTP/1.1", "< [512 body bytes]"
        }
        _ = (traced, options)
    }
}

// ### Tracing and metrics, block 55: a Package.swift fragment, not compiled.

// ### Tracing and metrics, block 56
enum ReadmeBlock56 {
    static func run() async throws {
        // Process-wide: once, at startup, before making sessions (each session reads them when made;
        // a tracer bound with `withTracer` is not seen).
        // InstrumentationSystem.bootstrap(otelTracer)
        // MetricsSystem.bootstrap(otelMetricsFactory)

        // Or per session (tests do this: the process-wide systems can be bootstrapped only once):
        var configuration = SessionConfiguration()
        configuration.tracing = TracingConfiguration(tracer: myTracer, queryRedaction: .all)
        configuration.metrics = MetricsConfiguration(factory: myMetricsFactory)
        let session = Session(configuration: configuration)

        try await myTracer.withSpan("checkout") { _ in      // the request's span is a child of this one
            _ = try await session.request("https://api.example.com/cart").validate().data()
        }
        _ = (configuration, session)
    }
}

// ## Testing code that uses Curlew, block 57
enum ReadmeBlock57 {
    struct Item: Decodable, Sendable { let id: Int }

    static func run() async throws {
        let stubs = HTTPStubs()
        stubs.register(.get, "https://api.example.com/items", .json(#"[{"id":1},{"id":2}]"#))
        stubs.register(.get, "https://api.example.com/flaky", .status(503), .text("ok"))  // in turn
        stubs.register(.get, "https://api.example.com/down", .failure(.connectionRefused))
        stubs.register(.get, "https://api.example.com/big", .chunks([
            StubChunk(Data(count: 64 << 10)), StubChunk(Data(count: 64 << 10), after: .milliseconds(50)),
        ]))

        let session = Session(configuration: .stubbed(by: stubs), interceptors: [RetryPolicy.default])
        let items = try await session.request("https://api.example.com/items").decode([Item].self)
        let sent = stubs.receivedRequests.first   // method, URL, header lines in order, body bytes
        try stubs.verifyAllMatched()              // every stub used, every request matched
        _ = (stubs, session, items, sent)
    }
}

// ### Record once, replay in CI (HAR), block 58
enum ReadmeBlock58 {
    static func run() async throws {
        // First run: the file does not exist, so the session goes to the network and records every
        // exchange (bodies included, secrets redacted as Curlew prints them). Later runs: it exists,
        // so HTTPStubs answer from it, with no socket.
        let cassette = try HARCassette(file: URL(fileURLWithPath: "Tests/Fixtures/catalog.har"))
        let catalog = try await cassette.session.request("https://api.example.com/items?page=1").data()
        try await cassette.finish()   // writes the file after a recording run

        // Or answer from any HAR 1.2 file (a browser's export, HARRecorder's) in your own stubs.
        let stubs = try HTTPStubs(replaying: URL(fileURLWithPath: "Tests/Fixtures/checkout.har"))
        _ = (cassette, catalog, stubs)
    }
}

// ## OpenAPI clients, block 59
enum ReadmeBlock59 {
    static func run() async throws {
        // Package.swift: .product(name: "CurlewOpenAPI", package: "curlew"),
        //                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")

        let session = Session(interceptors: [auth, RetryPolicy.default])
        let transport = CurlewTransport(session: session)
        _ = (session, transport)
    }
}

// ## OpenAPI clients, block 60: calls a generated OpenAPI client, not compiled here.
