import Curlew
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `--stream`: the response head, then each record of the body as soon as it arrives —
/// server-sent events (`text/event-stream`) as `event: data`, other bodies (NDJSON, logs) a
/// line at a time, JSON lines formatted as `--pretty` says.
struct StreamPrinter {
    let options: ClientOptions
    let printer: ResponsePrinter
    let exchange: Exchange

    func run(_ request: DataRequest) async -> ExitStatus {
        let streamed: StreamedResponse
        do {
            streamed = try await request.streamedResponse()
        } catch {
            return Exchange.report(error)
        }
        if printer.parts.responseHead {
            Terminal.write(printer.responseHead(streamed.head, version: .http1_1) + "\n")
        }
        let status = exchange.checkStatus(streamed.head)
        guard printer.parts.responseBody else { return status }
        let type = streamed.head.headerFields[.contentType]?.lowercased() ?? ""
        // Records go out one line each: formatting JSON across lines would split them.
        var recordPrinter = printer
        recordPrinter.formats = false
        do {
            if type.contains("text/event-stream") {
                for try await event in streamed.body.serverSentEvents {
                    let data = recordPrinter.body(Data(event.data.utf8), contentType: "application/json")
                    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
                    let name = event.event == "message" ? "" : printer.paint(event.event, printer.colours ? Palette().headerName : nil) + ": "
                    Terminal.write(name + text + "\n")
                }
            } else {
                for try await line in streamed.body.lines {
                    let data = recordPrinter.body(Data(line.utf8), contentType: type.contains("json") ? "application/json" : type)
                    Terminal.write(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines) + "\n")
                }
            }
        } catch let error as CurlewError {
            return Exchange.report(error)
        } catch {
            Terminal.complain("error: \(error)")
            return .failure
        }
        return status
    }
}
