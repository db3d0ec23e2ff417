import ArgumentParser
import Curlew
import Foundation
import HTTPTypes

/// `curlew ws URL [Header:value ...]`: opens a WebSocket, prints each incoming message on its
/// own line as it arrives (binary ones as a note of their size), and sends each line read from
/// standard input as a text message. At the end of standard input it keeps printing for
/// `--linger` seconds (answers to the last lines may still be on their way: once Curlew's close
/// frame is out, a server may drop the replies it had not sent yet), then closes the connection
/// normally and waits for the server's close. A server that closes first ends it at once.
struct WebSocketSession: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curlew ws",
        abstract: "Open a WebSocket: print incoming messages, send the lines of standard input.")

    @OptionGroup var client: ClientOptions

    @Argument(help: "ws://, wss:// or ws+unix:// URL, then Header:value items.")
    var arguments: [String] = []

    @Option(help: ArgumentHelp("Seconds to keep printing after the end of input before closing.", valueName: "SECONDS"))
    var linger: Double = 1

    /// Runs the connection; every failure has printed its line.
    func execute() async -> ExitStatus {
        guard linger.isFinite, linger >= 0, linger <= 86_400 else {
            Terminal.complain("error: --linger takes seconds from 0 to 86400, not \(linger)")
            return .badInput
        }
        guard let first = arguments.first else {
            Terminal.complain("error: curlew ws needs a URL")
            return .badInput
        }
        var headers: RequestHeaders = [:]
        for item in arguments.dropFirst() {
            guard let colon = item.firstIndex(of: ":"), colon != item.startIndex else {
                Terminal.complain("error: '\(item)': curlew ws takes Header:value items only")
                return .badInput
            }
            headers[String(item[..<colon])] = String(item[item.index(after: colon)...])
        }
        let session: Session
        do {
            session = Session(configuration: try client.sessionConfiguration())
        } catch {
            Terminal.complain("error: \(error)")
            return .badInput
        }
        defer { Task { await session.shutdown() } }
        do {
            // The end of input closes the connection, but the server's answers to the last
            // lines may still be on their way: give its closing handshake time, not 5 s.
            var options = WebSocketOptions()
            options.closeTimeout = .seconds(120)
            let socket = try await session.webSocket(first, headers: headers, options: options)
            let lingering = Duration.milliseconds(Int64((linger * 1000).rounded()))
            let sender = Task {
                for await line in Self.standardInputLines() {
                    do { try await socket.send(text: line) } catch { break }
                }
                // Cancelled (so cut short) when the server closed first.
                try? await Task.sleep(for: lingering)
                await socket.close()
            }
            for try await message in socket.messages {
                switch message {
                case .text(let text): Terminal.write(text + "\n", to: STDOUT_FILENO)
                case .binary(let data): Terminal.write("[binary message, \(data.count) bytes]\n", to: STDOUT_FILENO)
                }
            }
            sender.cancel()
            if let code = socket.closeCode, code != .normalClosure {
                Terminal.complain("closed by the server: \(code) \(socket.closeReason ?? "")")
                return .failure
            }
            return .success
        } catch let error as CurlewError {
            return Exchange.report(error)
        } catch {
            Terminal.complain("error: \(error)")
            return .failure
        }
    }

    /// The lines of standard input, read on a thread of their own (reading blocks).
    static func standardInputLines() -> AsyncStream<String> {
        AsyncStream { continuation in
            let reader = Thread {
                while let line = readLine(strippingNewline: true) { continuation.yield(line) }
                continuation.finish()
            }
            reader.start()
        }
    }
}
