// Fuzz target `contentdecoder`: ContentDecoder (gzip, deflate as zlib or raw, br, zstd, and
// stacked codings), as TransferContext drives it: `decode` per body chunk, `finish` at the end.
//
// Input: byte 0 picks the Content-Encoding; byte 1 whether the payload is fed as is (arbitrary
// coded bytes) or first compressed with that coding by the reference encoders (zlib, brotli,
// zstd), then left alone, truncated, given one corrupted byte, or followed by trailing bytes;
// bytes 2-9 seed a random chunking; the rest is the payload.
//
// Properties:
// - No crash or memory error, whatever the bytes and the chunking.
// - Chunking invariance: fed whole, one byte at a time, or in random chunks (empty ones
//   included), the decoder decodes the same bytes and succeeds or fails alike (a failure
//   counts whether `decode` or `finish` reports it, and is always malformedResponse);
//   on failure, the output before it of one feeding is a prefix of the other's. (One libzstd
//   exception is tolerated: see the note in the code and the README.)
// - Round trip: a compressed payload decodes to exactly the payload; a truncated one (cut
//   short of its end, and not to nothing) always fails, at `decode` or at `finish`.
// - codedBytes counts the input and decodedBytes the output.
@testable import Curlew
import CFuzzSupport
import Foundation
import FuzzSupport

enum Coding: CaseIterable {
    case gzip, xGzip, zlibDeflate, rawDeflate, brotli, zstd, gzipThenBrotli, identity

    var header: String {
        switch self {
        case .gzip: "gzip"
        case .xGzip: " X-GZIP "
        case .zlibDeflate, .rawDeflate: "deflate"
        case .brotli: "br"
        case .zstd: "zstd"
        case .gzipThenBrotli: "gzip, br"
        case .identity: "identity"
        }
    }
}

func compress(_ payload: [UInt8], _ coding: Coding, level: Int) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: payload.count * 2 + 1024)
    let capacity = output.count
    let size = output.withUnsafeMutableBufferPointer { out in
        switch coding {
        case .gzip, .xGzip: curlew_fuzz_deflate(payload, payload.count, 0, Int32(level % 10), out.baseAddress, capacity)
        case .zlibDeflate: curlew_fuzz_deflate(payload, payload.count, 1, Int32(level % 10), out.baseAddress, capacity)
        case .rawDeflate: curlew_fuzz_deflate(payload, payload.count, 2, Int32(level % 10), out.baseAddress, capacity)
        case .brotli: curlew_fuzz_brotli(payload, payload.count, Int32(level % 5), out.baseAddress, capacity)
        case .zstd: curlew_fuzz_zstd(payload, payload.count, Int32(1 + level % 5), out.baseAddress, capacity)
        case .gzipThenBrotli, .identity: 0
        }
    }
    switch coding {
    case .gzipThenBrotli: return compress(compress(payload, .gzip, level: level), .brotli, level: level)
    case .identity: return payload
    default:
        check(size > 0, "the reference encoder failed for \(coding)")
        return Array(output[..<size])
    }
}

struct Outcome: Equatable {
    var output: [UInt8] = []
    var failed = false
}

func decode(_ input: [UInt8], header: String, cuts: [Range<Int>]) -> Outcome {
    var outcome = Outcome()
    let decoder: ContentDecoder
    do {
        guard let made = try ContentDecoder(contentEncoding: header) else {
            check(false, "no decoder for \(header)")
            return outcome
        }
        decoder = made
    } catch {
        check(false, "\(header) refused: \(error)")
        return outcome
    }
    do {
        for cut in cuts {
            // A copy per chunk, so AddressSanitizer sees any read past it.
            let chunk = Array(input[cut])
            try chunk.withUnsafeBytes { raw in
                try decoder.decode(raw) { piece in outcome.output += piece }
            }
        }
        try decoder.finish()
    } catch {
        check((error as? CurlewError)?.kind == .malformedResponse, "failed with \(error)")
        outcome.failed = true
    }
    check(decoder.decodedBytes == outcome.output.count, "decodedBytes \(decoder.decodedBytes) != \(outcome.output.count)")
    if !outcome.failed { check(decoder.codedBytes == input.count, "codedBytes \(decoder.codedBytes) != \(input.count)") }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let coding = Coding.allCases[Int(input.byte()) % (Coding.allCases.count - 1)]  // identity has no decoder
    let mode = input.byte()
    var seed: UInt64 = 0
    for _ in 0..<8 { seed = seed << 8 | UInt64(input.byte()) }
    let payload = input.rest()

    enum Alteration { case none, truncated, corrupted, trailing }
    var alteration = Alteration.none
    var coded = payload
    if mode & 1 == 1 {
        coded = compress(payload, coding, level: Int(mode >> 4))
        switch (mode >> 1) & 7 {
        case 1 where coded.count > 1:
            coded = Array(coded[..<(Int(mode) * 7919 % (coded.count - 1) + 1)])
            alteration = .truncated
        case 2 where !coded.isEmpty:
            coded[Int(seed % UInt64(coded.count))] ^= UInt8(truncatingIfNeeded: seed >> 56) | 1
            alteration = .corrupted
        case 3:
            coded += [UInt8(truncatingIfNeeded: seed), 0x00, 0xFF]
            alteration = .trailing
        default:
            break
        }
    }

    let cuttings = chunkings(count: coded.count, seed: seed, maximumChunk: 48)
    let whole = decode(coded, header: coding.header, cuts: cuttings[0])
    for cuts in cuttings.dropFirst() {
        let other = decode(coded, header: coding.header, cuts: cuts)
        let what = "\(coding) \(alteration) \(coded.count) bytes, chunks \(cuts.map(\.count).prefix(20))"
        // libzstd 1.5.4 checks a frame's declared content size when it decodes the frame in one
        // pass, and not always when it streams it (an empty last block with a non-zero size
        // passes): a zstd body that fails whole may pass in pieces, with the same output. A
        // libzstd behaviour, tolerated here and noted in the README.
        if coding == .zstd && whole.failed && !other.failed && whole.output == other.output { continue }
        check(whole.failed == other.failed, "\(what): whole failed \(whole.failed), chunked failed \(other.failed)")
        if whole.failed {
            let shorter = min(whole.output.count, other.output.count)
            check(whole.output.prefix(shorter) == other.output.prefix(shorter), "\(what): outputs before the failure differ")
        } else {
            check(whole.output == other.output, "\(what): outputs differ (\(whole.output.count) and \(other.output.count) bytes)")
        }
    }
    switch alteration {
    case .none where mode & 1 == 1:
        check(!whole.failed && whole.output == payload, "\(coding): round trip failed (\(whole.failed))")
    case .truncated:
        check(whole.failed, "\(coding): a body truncated to \(coded.count) bytes was accepted")
    default:
        break
    }
    return 0
}

/// The executable's entry point (SwiftPM aliases `main` to it): libFuzzer's driver.
@_cdecl("contentdecoder_main")
public func contentdecoderMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1)!, size) }
}
