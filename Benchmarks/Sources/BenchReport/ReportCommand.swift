import BenchSupport
import Foundation

/// `bench-report --results FILE --meta FILE --markdown OUT --json OUT [--callgrind FILE]
/// [--syscalls FILE] [--rounds FILE]`, or `bench-report --self-test`.
///
/// Reads the JSON lines of a run, writes the Markdown table and the JSON summary, and prints
/// the Markdown. `--self-test` checks the verdict rule and the round pairing on fixed inputs.
@main
struct ReportCommand {
    static func main() {
        do {
            try run(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("bench-report: \(error)\n".utf8))
            exit(1)
        }
    }

    struct UsageError: Error, CustomStringConvertible { let description: String }

    static func run(_ arguments: [String]) throws {
        if arguments == ["--self-test"] {
            let failures = SelfTest.failures()
            for failure in failures { FileHandle.standardError.write(Data("self-test failed: \(failure)\n".utf8)) }
            guard failures.isEmpty else { exit(1) }
            print("bench-report self-test: the verdict rule and the round pairing hold")
            return
        }
        var options: [String: String] = [:]
        var index = 0
        while index + 1 < arguments.count {
            options[String(arguments[index].drop(while: { $0 == "-" }))] = arguments[index + 1]
            index += 2
        }
        guard let resultsPath = options["results"], let markdownPath = options["markdown"],
            let jsonPath = options["json"]
        else {
            throw UsageError(description: "usage: bench-report --results F --meta F --markdown OUT --json OUT [--callgrind F] [--syscalls F] [--rounds F] | --self-test")
        }
        let decoder = JSONDecoder()
        var results: [BenchResult] = []
        for line in try lines(resultsPath) {
            do {
                results.append(try decoder.decode(BenchResult.self, from: Data(line.utf8)))
            } catch {
                FileHandle.standardError.write(Data("bench-report: skipping a bad line: \(line)\n".utf8))
            }
        }
        var meta: [String: String] = [:]
        if let metaPath = options["meta"] {
            meta = try decoder.decode([String: String].self, from: Data(contentsOf: URL(fileURLWithPath: metaPath)))
        }
        var callgrind: [CallgrindResult] = []
        if let path = options["callgrind"], FileManager.default.fileExists(atPath: path) {
            callgrind = try lines(path).map { try decoder.decode(CallgrindResult.self, from: Data($0.utf8)) }
        }
        var syscalls: [SyscallResult] = []
        if let path = options["syscalls"], FileManager.default.fileExists(atPath: path) {
            syscalls = try lines(path).map { try decoder.decode(SyscallResult.self, from: Data($0.utf8)) }
        }
        var rounds: [RoundInfo] = []
        if let path = options["rounds"], FileManager.default.fileExists(atPath: path) {
            rounds = try lines(path).map { try decoder.decode(RoundInfo.self, from: Data($0.utf8)) }
        }
        let report = Report(meta: meta, results: results, callgrind: callgrind, syscalls: syscalls, rounds: rounds)
        let markdown = MarkdownWriter(report: report).render()
        try Data(markdown.utf8).write(to: URL(fileURLWithPath: markdownPath))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(report).write(to: URL(fileURLWithPath: jsonPath))
        print(markdown)
    }

    private static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .map(String.init).filter { $0.hasPrefix("{") }
    }
}
