import Curlew
import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#endif

/// One run of `curlew`: the request the command line describes, sent on a session of its own,
/// and its output. Every failure prints one line and maps to an ``ExitStatus``.
struct Exchange {
    let options: ClientOptions
    let plan: RequestPlan
    let printer: ResponsePrinter
    let persisted: SessionStore?

    init(options: ClientOptions, arguments: [String]) throws(CommandLineError) {
        self.options = options
        let readsInput = !options.ignoreStdin && !Terminal.standardInputIsTerminal
        plan = try RequestPlan(
            arguments: arguments, bodyStyle: options.bodyStyle, jsonRequested: options.json,
            standardInput: readsInput ? { FileHandle.standardInput.readDataToEndOfFile() } : nil)
        persisted = try options.session.map { name throws(CommandLineError) in try SessionStore(name: name) }

        let toTerminal = Terminal.standardOutputIsTerminal && options.output == nil
        let pretty = options.pretty ?? (toTerminal ? .all : .none)
        let colours = (pretty == .all || pretty == .colors) && Terminal.coloursAllowed && options.output == nil
        let letters: String
        if let chosen = options.print {
            letters = chosen
        } else if options.verbose {
            letters = "HBhb"
        } else if options.headers {
            letters = "h"
        } else if options.body {
            letters = "b"
        } else {
            letters = toTerminal ? "hb" : "b"
        }
        printer = ResponsePrinter(
            parts: try ResponsePrinter.Parts(letters), colours: colours,
            formats: pretty == .all || pretty == .format, toTerminal: toTerminal)
    }

    /// Sends the request and prints what was asked for.
    func run() async -> ExitStatus {
        let configuration: SessionConfiguration
        let request: OutgoingRequest
        var interceptors: [any RequestInterceptor] = []
        let tokenFile: OAuth2TokenFile?
        do {
            var built = try sessionConfiguration()
            if let persisted { built.cookieStorage = persisted.cookies }
            configuration = built
            request = try outgoingRequest()
            tokenFile = try options.oauth2.map { path throws(CommandLineError) in try OAuth2TokenFile(path: path) }
            if let tokenFile { interceptors.append(tokenFile.authenticator(for: request.url)) }
        } catch {
            Terminal.complain("error: \(error)")
            return .badInput
        }
        if options.insecure {
            Terminal.write(
                "curlew: WARNING: --insecure: the server's certificate is NOT checked; anyone on the path can read and change this exchange\n",
                to: STDERR_FILENO)
        }
        let session = Session(configuration: configuration, interceptors: interceptors)
        let status = await run(request, on: session)
        await session.shutdown()
        if let persisted {
            do {
                try persisted.save(headers: plan.headers)
            } catch {
                Terminal.complain("error: \(error)")
                return status == .success ? .failure : status
            }
        }
        return status
    }

    private func sessionConfiguration() throws(CommandLineError) -> SessionConfiguration {
        try options.sessionConfiguration()
    }

    /// The request: the plan's method, URL, headers (the session file's first) and body, with
    /// the authentication options.
    private func outgoingRequest() throws(CommandLineError) -> OutgoingRequest {
        var fields = HTTPFields()
        let given = try plan.headerFields()
        if let persisted {
            for (name, value) in persisted.headers {
                guard let fieldName = HTTPField.Name(name), given[fieldName] == nil else { continue }
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        fields.append(contentsOf: given)
        if fields[.accept] == nil { fields[.accept] = "*/*" }
        var requestOptions = RequestOptions()
        if let bearer = options.bearer {
            fields[.authorization] = "Bearer \(bearer)"
        } else if let auth = options.auth {
            switch options.authType {
            case .bearer:
                fields[.authorization] = "Bearer \(auth)"
            case .basic, .digest:
                guard let colon = auth.firstIndex(of: ":") else {
                    throw CommandLineError("--auth needs user:password")
                }
                requestOptions.httpCredential = HTTPCredential(
                    username: String(auth[..<colon]), password: String(auth[auth.index(after: colon)...]),
                    method: options.authType == .digest ? .digest : .basic)
            }
        }
        // The request head as libcurl sent it (Host, User-Agent, Accept-Encoding, credentials
        // as ***) comes from the wire trace; --trace's session-wide one carries it already.
        if printer.parts.requestHead, !options.trace { requestOptions.wireTrace = WireTrace() }
        if options.http1 { requestOptions.httpVersion = .http1_1 }
        if options.http2 { requestOptions.httpVersion = .http2OverTLS }
        return OutgoingRequest(
            url: plan.url, method: plan.method, headerFields: fields, body: plan.requestBody, options: requestOptions)
    }

    private func run(_ request: OutgoingRequest, on session: Session) async -> ExitStatus {
        let dataRequest = session.request(request)
        if options.curl {
            Terminal.write(dataRequest.cURLDescription() + "\n")
            return .success
        }
        if options.download {
            return await Downloader(options: options, printer: printer).run(request, on: session)
        }
        if options.stream {
            return await StreamPrinter(options: options, printer: printer, exchange: self).run(dataRequest)
        }
        // Subscribed before the request starts, so that no record is missed.
        let sentHead = printer.parts.requestHead ? Self.lastSentHead(of: dataRequest.events) : nil
        let response: Response<Data>
        do {
            response = try await dataRequest.response
        } catch {
            printRequest(request, version: "HTTP/1.1", sentHead: await sentHead?.value)
            return Self.report(error)
        }
        printRequest(response.request, version: ResponsePrinter.protocolName(response.metrics.httpVersion), sentHead: await sentHead?.value)
        if printer.parts.responseHead {
            Terminal.write(printer.responseHead(response.head, version: response.metrics.httpVersion))
            if printer.parts.responseBody { Terminal.write("\n") }
        }
        var status = checkStatus(response.head)
        if printer.parts.responseBody {
            let selected = writeBody(response.value, contentType: response.head.headerFields[.contentType])
            if selected != .success { status = selected }
        }
        if options.verbose { Terminal.write(Waterfall.text(response.metrics, colours: printer.colours), to: STDERR_FILENO) }
        return status
    }

    /// The lines of the last request head libcurl sent (the final hop's, after redirects), from
    /// the request's wire trace records; nil when none was sent.
    static func lastSentHead(of events: AsyncThrowingStream<TransferEvent, any Error>) -> Task<[String]?, Never> {
        Task {
            var last: [String]?
            do {
                for try await event in events {
                    if case .wireTrace(let record) = event, record.kind == .requestHead { last = record.lines }
                }
            } catch {
                // The request's failure is reported by whoever awaits its response.
            }
            return last
        }
    }

    /// Writes the request head and body when `--print` asks for them: the head as sent when
    /// the wire trace gave it, else as the request was built.
    func printRequest(_ request: OutgoingRequest, version: String, sentHead: [String]? = nil) {
        guard printer.parts.requestHead || printer.parts.requestBody else { return }
        if printer.parts.requestHead, let sentHead, !sentHead.isEmpty {
            Terminal.write(printer.sentRequestHead(sentHead))
            Terminal.write("\n")
        } else if printer.parts.requestHead {
            var fields = request.headerFields.map { ($0.name.rawName, $0.value) }
            if !fields.contains(where: { $0.0.lowercased() == "user-agent" }) {
                fields.append(("User-Agent", "curlew/\(CurlewCommand.version)"))
            }
            if request.options.httpCredential?.method == .basic, !fields.contains(where: { $0.0.lowercased() == "authorization" }) {
                fields.append(("Authorization", "Basic ***"))
            }
            Terminal.write(printer.requestHead(method: request.method.rawValue, url: request.url, fields: fields, version: version))
            Terminal.write("\n")
        }
        if printer.parts.requestBody {
            switch plan.body {
            case .none: break
            case .data(let data, let type):
                Terminal.write(printer.body(data, contentType: type))
                Terminal.write("\n")
            case .file(let url):
                Terminal.write("(the body of \(url.path))\n\n")
            case .multipart(let form):
                Terminal.write("(a multipart form of \(form.count) parts, \(form.contentLength.map { "\($0) bytes" } ?? "sent chunked"))\n\n")
            }
        }
    }

    /// Writes the response body (or what `--jq-path`/`--xpath` select from it) to standard
    /// output or `--output`.
    func writeBody(_ data: Data, contentType: String?) -> ExitStatus {
        var body = data
        var type = contentType
        do {
            if let path = options.jqPath {
                body = try Selection.json(path, in: data)
                type = "application/json"
            } else if let xpath = options.xpath {
                body = try Selection.xml(xpath, in: data)
                type = "text/plain"
            }
        } catch {
            Terminal.complain("error: \(error)")
            return .failure
        }
        var shown = printer.body(body, contentType: type)
        // On a terminal the prompt starts on a line of its own; piped bytes stay as sent.
        if printer.toTerminal, let last = shown.last, last != UInt8(ascii: "\n") { shown.append(UInt8(ascii: "\n")) }
        if let output = options.output {
            let url = URL(fileURLWithPath: (output as NSString).expandingTildeInPath)
            do {
                try shown.write(to: url)
            } catch {
                Terminal.complain("error: cannot write \(output): \(error.localizedDescription)")
                return .failure
            }
        } else {
            Terminal.write(shown)
        }
        return .success
    }

    /// The exit status `--check-status` gives `head`, with httpie's warning on standard error.
    func checkStatus(_ head: HTTPResponse) -> ExitStatus {
        guard options.checkStatus else { return .success }
        let status = ExitStatus.forStatus(head.status.code)
        if status != .success {
            Terminal.complain("warning: HTTP \(head.status.code) \(head.status.reasonPhrase)")
        }
        return status
    }

    /// Prints a failed request's one line and returns its status.
    static func report(_ error: CurlewError) -> ExitStatus {
        if error.kind == .unacceptableStatus, let status = error.status {
            Terminal.complain("error: HTTP \(status.code) \(status.reasonPhrase)")
            return ExitStatus.forStatus(status.code) == .success ? .failure : ExitStatus.forStatus(status.code)
        }
        let message = error.message.replacingOccurrences(of: "\n", with: " ")
        Terminal.complain("error: \(error.kind): \(message)")
        return ExitStatus.forError(error)
    }
}
