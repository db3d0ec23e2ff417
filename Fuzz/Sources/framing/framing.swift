// Fuzz target `framing`: RecordFramer (the line, NDJSON and JSON-text-sequence framer) and
// the public LineSequence and JSONStreamDecodingSequence built on it.
//
// Input: byte 0 picks the terminator (LF/CRLF, any newline, RS) and byte 1 the maximum record
// length; bytes 2-9 seed a random chunking; the rest is the stream.
//
// Properties:
// - RecordFramer yields exactly the records of a simple reference splitter (BOM dropped,
//   trailing CR dropped for LF framing, CR / LF / CRLF for any-newline), and fails with
//   bodyTooLarge exactly when, and where, the reference finds a record over the maximum,
//   whether the stream comes whole, one byte at a time, or cut at random (empty chunks too).
// - LineSequence yields the reference lines, failing on the first one that is not UTF-8.
// - JSONStreamDecodingSequence<JSON> yields JSON(parsing:) of each non-blank reference
//   record, failing on the first one that does not parse.
@testable import Curlew
import Foundation
import FuzzSupport

enum Mode: CaseIterable { case newline, anyNewline, recordSeparator }

enum Outcome: Equatable {
    case records([[UInt8]])
    /// The records before the one that is too long.
    case tooLong([[UInt8]])
}

/// The framing as the documentation describes it, written independently of RecordFramer.
func reference(_ input: [UInt8], mode: Mode, maximum: Int) -> Outcome {
    var bytes = ArraySlice(input)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    var records: [[UInt8]] = []
    var current: [UInt8] = []
    var index = bytes.startIndex
    func end(_ record: [UInt8]) -> Bool {
        guard record.count <= maximum else { return false }
        var record = record
        if mode == .newline, record.last == 0x0D { record.removeLast() }
        records.append(record)
        return true
    }
    while index < bytes.endIndex {
        let byte = bytes[index]
        index += 1
        let terminates: Bool
        switch mode {
        case .newline: terminates = byte == 0x0A
        case .recordSeparator: terminates = byte == 0x1E
        case .anyNewline:
            terminates = byte == 0x0A || byte == 0x0D
            if byte == 0x0D, index < bytes.endIndex, bytes[index] == 0x0A { index += 1 }
        }
        if terminates {
            guard end(current) else { return .tooLong(records) }
            current = []
        } else {
            current.append(byte)
            if current.count > maximum { return .tooLong(records) }
        }
    }
    if !current.isEmpty {
        guard end(current) else { return .tooLong(records) }
    }
    return .records(records)
}

func terminator(_ mode: Mode) -> RecordFramer.Terminator {
    switch mode {
    case .newline: .newline
    case .anyNewline: .anyNewline
    case .recordSeparator: .byte(0x1E)
    }
}

func frame(_ chunks: [Data], mode: Mode, maximum: Int) -> Outcome {
    var framer = RecordFramer(terminator: terminator(mode), maximumLength: maximum)
    var records: [[UInt8]] = []
    do {
        for chunk in chunks {
            framer.feed(chunk)
            while let record = try framer.nextRecord() { records.append(Array(record)) }
        }
        while let record = try framer.nextRecord() { records.append(Array(record)) }
        if let last = try framer.finishCheckingLength() { records.append(Array(last)) }
        check(framer.finish() == nil, "finish() returned a record twice")
    } catch {
        check(error.kind == .bodyTooLarge, "unexpected error \(error)")
        return .tooLong(records)
    }
    return .records(records)
}

enum Item: Equatable, Sendable {
    case line(String)
    case value(JSON)
    case failed(CurlewError.Kind)
}

func collectLines(_ chunks: [Data], maximum: Int) -> [Item] {
    runBlocking {
        var items: [Item] = []
        do {
            for try await line in ChunkSequence(chunks).lines(maximumLineLength: maximum) { items.append(.line(line)) }
        } catch {
            items.append(.failed((error as? CurlewError)?.kind ?? .transport))
        }
        return items
    }
}

func collectJSON(_ chunks: [Data], framing: StreamFraming) -> [Item] {
    runBlocking {
        var items: [Item] = []
        do {
            for try await value in ChunkSequence(chunks).decodeStream(JSON.self, framing: framing) {
                items.append(.value(value))
            }
        } catch {
            items.append(.failed((error as? CurlewError)?.kind ?? .transport))
        }
        return items
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let mode = Mode.allCases[Int(input.byte()) % Mode.allCases.count]
    let lengthByte = Int(input.byte())
    // Small maxima reach the length checks; 255 stands for the default (no limit in practice).
    let maximum = lengthByte >= 200 ? 1 << 20 : lengthByte % 48
    var seed: UInt64 = 0
    for _ in 0..<8 { seed = seed << 8 | UInt64(input.byte()) }
    let stream = input.rest()

    let expected = reference(stream, mode: mode, maximum: max(1, maximum))
    let cuttings = chunkings(count: stream.count, seed: seed)
    for cuts in cuttings {
        let got = frame(chunks(of: stream, cuts: cuts), mode: mode, maximum: maximum)
        check(got == expected, "\(mode) max \(maximum) cut \(cuts.map(\.count)): \(got) != \(expected)")
    }

    // The public sequences, over the random cutting.
    let randomChunks = chunks(of: stream, cuts: cuttings[2])
    let (records, tooLong): ([[UInt8]], Bool) =
        switch expected {
        case .records(let records): (records, false)
        case .tooLong(let records): (records, true)
        }
    switch mode {
    case .newline:
        var lines: [Item] = []
        var failed = false
        for record in records {
            guard let line = String(validating: record, as: UTF8.self) else {
                lines.append(.failed(.serializationFailed))
                failed = true
                break
            }
            lines.append(.line(line))
        }
        if tooLong && !failed { lines.append(.failed(.bodyTooLarge)) }
        let got = collectLines(randomChunks, maximum: maximum)
        check(got == lines, "lines \(got) != \(lines)")
        fallthrough
    case .recordSeparator:
        var values: [Item] = []
        var failed = false
        for record in records where !JSONStreamDecodingSequence<ChunkSequence, JSON>.isBlank(Data(record)) {
            guard let value = try? JSON(parsing: Data(record)) else {
                values.append(.failed(.serializationFailed))
                failed = true
                break
            }
            values.append(.value(value))
        }
        if tooLong && !failed { values.append(.failed(.bodyTooLarge)) }
        let framing: StreamFraming =
            mode == .newline ? .jsonLines(maximumLineLength: maximum) : .jsonTextSequence.maximumRecordLength(maximum)
        let got = collectJSON(randomChunks, framing: framing)
        check(got == values, "json \(got) != \(values)")
    case .anyNewline:
        break  // the SSE target covers it
    }
    return 0
}

/// The executable's entry point (SwiftPM aliases `main` to it): libFuzzer's driver.
@_cdecl("framing_main")
public func framingMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1)!, size) }
}
