import Curlew
import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#endif

/// `--download`: the body to a file, the response head and a live progress bar on standard
/// error (the bar only when standard error is a terminal).
///
/// Without `--continue`, Curlew's download writes a temporary file beside the destination and
/// renames it into place only when the transfer succeeded, so a failure leaves nothing. With
/// `--continue`, the body is appended to `--output` as it arrives (so an interrupted run leaves
/// a partial file to continue): an existing file of N bytes asks for `Range: bytes=N-`, a `206`
/// starting at N is appended, a `200` replaces the file, a `416` means it is complete.
struct Downloader {
    let options: ClientOptions
    let printer: ResponsePrinter

    func run(_ request: OutgoingRequest, on session: Session) async -> ExitStatus {
        if options.resume, let output = options.output {
            return await resume(request, to: URL(fileURLWithPath: (output as NSString).expandingTildeInPath), on: session)
        }
        let destination: DownloadDestination
        if let output = options.output {
            let url = URL(fileURLWithPath: (output as NSString).expandingTildeInPath)
            destination = .file(url, options: [.removePreviousFile])
        } else {
            let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            destination = .custom(options: []) { suggested, _ in Self.freeName(suggested, in: directory) }
        }
        let download = session.download(request, to: destination).validate()
        let bar = Terminal.standardErrorIsTerminal ? ProgressBar() : nil
        do {
            var resultURL: URL?
            for try await event in download.events {
                switch event {
                case .response(let head):
                    writeHead(head)
                case .downloadProgress(let progress):
                    bar?.show(progress)
                case .completed(let done):
                    resultURL = done.fileURL
                    bar?.finish(bytes: done.metrics.bytesReceived, elapsed: done.metrics.total)
                case .uploadProgress, .suspended, .resumed, .wireTrace:
                    break
                }
            }
            var path = resultURL?.path
            if path == nil { path = try await download.fileURL().path }
            Terminal.write("Saved to \(path ?? "?")\n", to: STDERR_FILENO)
            return .success
        } catch {
            bar?.clear()
            if let failure = error as? CurlewError {
                return Exchange.report(failure)
            }
            Terminal.complain("error: \(error)")
            return .failure
        }
    }

    private func writeHead(_ head: HTTPResponse) {
        guard printer.parts.responseHead || options.verbose else { return }
        var plain = printer
        plain.colours = printer.colours && Terminal.standardErrorIsTerminal
        Terminal.write(plain.responseHead(head, version: .http1_1) + "\n", to: STDERR_FILENO)
    }

    /// `name` in `directory`, or `name-1`, `name-2`, … when taken (never a path elsewhere).
    static func freeName(_ suggested: String, in directory: URL) -> URL {
        var name = (suggested as NSString).lastPathComponent
        if name.isEmpty || name == "." || name == ".." || name == "/" { name = "download" }
        let base = (name as NSString).deletingPathExtension
        let pathExtension = (name as NSString).pathExtension
        var candidate = directory.appendingPathComponent(name)
        var number = 1
        while FileManager.default.fileExists(atPath: candidate.path) {
            let numbered = "\(base)-\(number)" + (pathExtension.isEmpty ? "" : ".\(pathExtension)")
            candidate = directory.appendingPathComponent(numbered)
            number += 1
        }
        return candidate
    }

    /// `--continue`: ranges and appends, as described on the type.
    private func resume(_ original: OutgoingRequest, to file: URL, on session: Session) async -> ExitStatus {
        let existing = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
        var request = original
        if existing > 0 { request.headerFields[.range] = "bytes=\(existing)-" }
        let streamed: StreamedResponse
        do {
            streamed = try await session.request(request).streamedResponse()
        } catch {
            return Exchange.report(error)
        }
        writeHead(streamed.head)
        var offset: Int64 = 0
        var total: Int64?
        switch streamed.status.code {
        case 206 where existing > 0:
            guard let range = streamed.head.headerFields[.contentRange],
                let (start, length) = Self.contentRange(range), start == existing
            else {
                Terminal.complain("error: the server answered the range with '\(streamed.head.headerFields[.contentRange] ?? "no Content-Range")', not bytes \(existing)-: nothing written")
                return .failure
            }
            offset = existing
            total = length
        case 416 where existing > 0:
            Terminal.write("\(file.path) is already complete (\(existing) bytes)\n", to: STDERR_FILENO)
            return .success
        case 200..<300:
            total = streamed.head.headerFields[.contentLength].flatMap { Int64($0) }
        default:
            Terminal.complain("error: HTTP \(streamed.status.code) \(streamed.status.reasonPhrase)")
            let status = ExitStatus.forStatus(streamed.status.code)
            return status == .success ? .failure : status
        }
        let descriptor = open(file.path, O_WRONLY | O_CREAT | (offset > 0 ? O_APPEND : O_TRUNC) | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            Terminal.complain("error: cannot open \(file.path): \(String(cString: strerror(errno)))")
            return .failure
        }
        defer { close(descriptor) }
        let bar = Terminal.standardErrorIsTerminal ? ProgressBar() : nil
        let clock = ContinuousClock()
        let started = clock.now
        var written = offset
        do {
            for try await chunk in streamed.body {
                Terminal.write(chunk, to: descriptor)
                written += Int64(chunk.count)
                let elapsed = started.duration(to: clock.now)
                let rate = Double(written - offset) / max(Waterfall.seconds(elapsed), 1e-3)
                bar?.show(TransferProgress(completedBytes: written, totalBytes: total, bytesPerSecond: rate, elapsed: elapsed))
            }
        } catch {
            bar?.clear()
            Terminal.complain("error: the transfer stopped after \(written) bytes (run again with --continue): \(error)")
            return (error as? CurlewError).map { ExitStatus.forError($0) } ?? .failure
        }
        bar?.finish(bytes: written - offset, elapsed: started.duration(to: clock.now))
        Terminal.write("Saved to \(file.path)\n", to: STDERR_FILENO)
        return .success
    }

    /// `bytes START-END/TOTAL` as (START, TOTAL); TOTAL nil when `*`.
    static func contentRange(_ value: String) -> (Int64, Int64?)? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let dash = parts[0].firstIndex(of: "-"), let start = Int64(parts[0][..<dash]) else { return nil }
        return (start, Int64(parts[1]))
    }
}
