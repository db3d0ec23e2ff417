import ArgumentParser
import Curlew
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `curlew [METHOD] URL [ITEM ...]`: an httpie-style HTTP client on Curlew's public API.
///
/// `curlew ws URL` is a command of its own (``WebSocketSession``), dispatched in ``main()``
/// when the first argument is `ws` (before this command's parsing, which would read `ws` as a
/// URL); it reuses ``ClientOptions`` through `@OptionGroup` for trust, proxy and authentication.
@main
struct CurlewCommand: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "curlew",
        abstract: "An httpie-style HTTP client, on the Curlew library.",
        usage: "curlew [<options>] [METHOD] URL [ITEM ...]",
        discussion: """
            METHOD defaults to GET, or POST when the request has data. URL may leave
            out http:// (example.org/x); :3000/x means http://localhost:3000/x.

            ITEMS:
              Header:value   a request header (Header; sends it empty)
              name==value    a query parameter
              field=value    a data field: a JSON string (a form field with --form)
              field:=json    a data field with a raw JSON value (30, true, [1,2])
              field=@file    a string field read from a file (field:=@file: JSON)
              field@file     a file in a multipart form (field@file;type=text/csv)
              @file          the request body from a file
            Data fields make a JSON object unless --form or --multipart. Without
            items, standard input (when not a terminal) is the body; -I ignores it.
            A backslash makes a separator literal: a\\=b=c is the field a=b.

            OUTPUT:
            The response headers and body on a terminal (--print=hb), the body alone
            when piped (--print=b); -v adds the request (HBhb), and a timing
            waterfall on standard error. JSON and XML are formatted and coloured on
            a terminal (--pretty=all), left as sent when piped (--pretty=none);
            NO_COLOR turns colours off. Authorization, Proxy-Authorization and
            Cookie values print as ***.

            WEBSOCKETS:
            curlew ws URL [Header:value ...] opens a WebSocket (ws://, wss://,
            ws+unix://), prints each incoming message on a line, and sends each line
            of standard input as a text message; the end of input closes it
            after --linger SECONDS (default 1) of printing what still arrives.

            \(ExitStatus.helpText)
            """,
        version: version
    )

    @OptionGroup var client: ClientOptions

    @Argument(help: ArgumentHelp("[METHOD] URL [ITEM ...]", valueName: "request"))
    var request: [String] = []

    /// Parses the command line and runs it. Bad input is one line on standard error, never a
    /// usage dump or a stack trace.
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        if CommandLine.arguments.dropFirst().first == "ws" {
            let command: WebSocketSession
            do {
                command = try WebSocketSession.parse(Array(CommandLine.arguments.dropFirst(2)))
            } catch {
                failParsing(error, of: WebSocketSession.self)
            }
            Foundation.exit(await command.execute().rawValue)
        }
        let parsed: any ParsableCommand
        do {
            parsed = try parseAsRoot()
        } catch {
            failParsing(error)
        }
        guard let command = parsed as? CurlewCommand else {
            // `--help`, `--version` and the like: ArgumentParser's own commands.
            do {
                if var asynchronous = parsed as? any AsyncParsableCommand {
                    try await asynchronous.run()
                } else {
                    var other = parsed
                    try other.run()
                }
            } catch {
                exit(withError: error)
            }
            Foundation.exit(0)
        }
        let status = await command.execute()
        Foundation.exit(status.rawValue)
    }

    /// A parse error: help and version requests as ArgumentParser prints them, anything else as
    /// one line and ``ExitStatus/badInput``.
    private static func failParsing<Command: ParsableCommand>(_ error: any Error, of command: Command.Type = Self.self) -> Never {
        if command.exitCode(for: error) == .success || error is CleanExit {
            command.exit(withError: error)
        }
        let message = command.fullMessage(for: error).split(separator: "\n").first.map(String.init) ?? "invalid arguments"
        Terminal.complain(message.replacingOccurrences(of: "Error: ", with: "error: "))
        Foundation.exit(ExitStatus.badInput.rawValue)
    }

    func run() async throws {
        let status = await execute()
        if status != .success { throw ExitCode(status.rawValue) }
    }

    /// Runs the request and returns the exit status; every failure has printed its line.
    func execute() async -> ExitStatus {
        do {
            let exchange = try Exchange(options: client, arguments: request)
            let status = await exchange.run()
            if let har = client.har {
                do {
                    try HARAppender.append(to: har)
                } catch {
                    Terminal.complain("--har \(har): \(error.message)")
                    return status == .success ? .failure : status
                }
            }
            return status
        } catch {
            Terminal.complain("error: \(error)")
            return .badInput
        }
    }
}
