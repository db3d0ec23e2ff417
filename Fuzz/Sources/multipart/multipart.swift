// Fuzz target `multipart`: MultipartFormData and MultipartBodySequence. Builds a form of text,
// data and stream parts (names, file names, MIME types and contents from the fuzz bytes, with
// a random or a fuzz-chosen boundary), encodes it in memory and as a stream, and parses the
// output back.
//
// Properties:
// - A name or file name is rejected (invalidRequest) exactly when it holds CR, LF or NUL, a
//   MIME type exactly when it is not visible ASCII `type/subtype`, a boundary exactly when
//   it breaks RFC 2046's rules.
// - encodedData(), the streamed body (twice: it must replay) and contentLength agree; no
//   streamed chunk is empty or larger than the chunk size.
// - A stream part whose stream yields more or fewer bytes than declared fails the streamed
//   body with uploadFailed.
// - The output parses back with an independent parser: the boundary delimits exactly the
//   parts added, in order, each with the expected Content-Disposition (`"` escaped as %22)
//   and Content-Type lines and its content byte for byte. With the random boundary the
//   delimiter never occurs inside a part. A fuzz-chosen boundary that occurs in a part's
//   content cannot parse back; such forms skip the parse-back instead of failing (Curlew
//   does not check content against a caller's boundary: see Fuzz/README.md).
@testable import Curlew
import Foundation
import FuzzSupport

let alphabet = ["a", "Z", "0", " ", "\"", "%22", "\r", "\n", "\u{0}", ";", "=", "é", "😀", ".", "txt", "/", "-", "\\"]
let mimeAlphabet = ["text", "/", "plain", ";", " ", "a", "=", "b", "\t", "\u{7F}", "\r\n", "é", "x"]
let boundaryAlphabet = ["a", "Z", "0", "-", "'", "(", ")", "+", "_", ",", ".", "/", ":", "=", "?", " ", "\r", "\"", "é"]

enum Kind { case text, data, stream }

struct Expected {
    let kind: Kind
    let name: String
    let fileName: String?
    let mimeType: String?
    let content: [UInt8]
}

func escaped(_ text: String) -> String { text.replacingOccurrences(of: "\"", with: "%22") }

func forbidden(_ text: String) -> Bool { text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } }

func validMIME(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || (0x21...0x7E).contains($0) }),
        let slash = bytes.firstIndex(of: UInt8(ascii: "/"))
    else { return false }
    return slash > 0 && slash + 1 < bytes.count
}

func validBoundary(_ text: String) -> Bool {
    let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'()+_,-./:=? ".utf8)
    return (1...70).contains(text.utf8.count) && text.utf8.allSatisfy(allowed.contains) && text.utf8.last != 0x20
}

func range(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard needle.count <= haystack.count, start <= haystack.count - needle.count else { return nil }
    for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
        if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
    }
    return nil
}

/// Parses a multipart body into (header block, content) pairs, independently of Curlew.
func parseBody(_ body: [UInt8], boundary: String) -> [(headers: String, content: [UInt8])]? {
    let dash = Array("--\(boundary)".utf8)
    let delimiter = Array("\r\n--\(boundary)".utf8)
    if body == dash + Array("--\r\n".utf8) { return [] }
    guard body.starts(with: dash + Array("\r\n".utf8)) else { return nil }
    var parts: [(String, [UInt8])] = []
    var start = dash.count + 2
    while true {
        guard let end = range(of: delimiter, in: body, from: start) else { return nil }
        let part = Array(body[start..<end])
        guard let blank = range(of: Array("\r\n\r\n".utf8), in: part, from: 0) else { return nil }
        parts.append((String(decoding: part[0..<blank + 2], as: UTF8.self), Array(part[(blank + 4)...])))
        let after = body[(end + delimiter.count)...]
        if after.elementsEqual(Array("--\r\n".utf8)) { return parts }
        guard after.starts(with: Array("\r\n".utf8)) else { return nil }
        start = end + delimiter.count + 2
    }
}

struct Mismatch: Error {}

func stream(_ form: MultipartFormData) -> Result<[UInt8], CurlewError> {
    let sequence = form.bodySequence()
    return runBlocking {
        var bytes: [UInt8] = []
        do {
            for try await chunk in sequence {
                check(!chunk.isEmpty && chunk.count <= MultipartBodySequence.chunkSize, "chunk of \(chunk.count) bytes")
                bytes += chunk
            }
        } catch {
            return .failure(error as? CurlewError ?? CurlewError(.transport, "\(error)"))
        }
        return .success(bytes)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    var form: MultipartFormData
    let customBoundary = input.bool()
    if customBoundary {
        let boundary = input.string(upTo: 12, from: boundaryAlphabet)
        do {
            form = try MultipartFormData(boundary: boundary)
            check(validBoundary(boundary), "boundary \(boundary.debugDescription) was accepted")
        } catch {
            check(!validBoundary(boundary), "boundary \(boundary.debugDescription) was rejected")
            return 0
        }
    } else {
        form = MultipartFormData()
        check(validBoundary(form.boundary) && form.boundary.utf8.count == 44, "random boundary \(form.boundary)")
    }

    var expected: [Expected] = []
    var streamLengthsWrong = false
    var streamHoldsBoundary = false
    for _ in 0..<Int(input.byte() % 5) {
        let kind = [Kind.text, .data, .stream][Int(input.byte()) % 3]
        let name = input.string(upTo: 6, from: alphabet)
        let fileName = kind != .text && input.bool() ? input.string(upTo: 6, from: alphabet) : nil
        let mimeType = kind != .text && input.bool() ? input.string(upTo: 8, from: mimeAlphabet) : nil
        // Content: raw bytes, or text that may hold the delimiter of a custom boundary (a random
        // one is a secret the content cannot know).
        let content: [UInt8] =
            input.bool()
            ? input.bytes(upTo: 40)
            : Array(input.string(upTo: 4, from: ["\r\n--", customBoundary ? form.boundary : "b", "--", "x", "\r\n"]).utf8)
        // With a caller's boundary, content holding `--boundary` is refused: at `append` for
        // in-memory parts, while streaming for stream parts.
        let stored = kind == .text ? Array(String(decoding: content, as: UTF8.self).utf8) : content
        let holdsBoundary = customBoundary && range(of: Array("--\(form.boundary)".utf8), in: stored, from: 0) != nil
        let shouldFail = forbidden(name) || fileName.map(forbidden) == true || mimeType.map(validMIME) == false
            || (holdsBoundary && kind != .stream)
        do {
            switch kind {
            case .text:
                let text = String(decoding: content, as: UTF8.self)
                try form.append(text, withName: name)
                expected.append(Expected(kind: kind, name: name, fileName: nil, mimeType: nil, content: Array(text.utf8)))
            case .data:
                try form.append(Data(content), withName: name, fileName: fileName, mimeType: mimeType)
                expected.append(Expected(kind: kind, name: name, fileName: fileName, mimeType: mimeType, content: content))
            case .stream:
                // Chunks of the content, with an empty one; the declared length is sometimes off.
                let cut = content.count / 2
                let chunks = [Data(content[..<cut]), Data(), Data(content[cut...])]
                let delta = Int64(input.byte() % 8 == 0 ? Int(input.byte() % 3) - 1 : 0)
                let length = Int64(content.count) + delta
                if length < 0 { continue }
                try form.append(length: length, withName: name, fileName: fileName, mimeType: mimeType) {
                    ChunkSequence(chunks)
                }
                if delta != 0 { streamLengthsWrong = true }
                if holdsBoundary && !shouldFail { streamHoldsBoundary = true }
                expected.append(Expected(kind: kind, name: name, fileName: fileName, mimeType: mimeType, content: content))
            }
            check(!shouldFail, "part \(name.debugDescription) \(fileName.debugDescription) \(mimeType.debugDescription) accepted")
        } catch {
            check(shouldFail && error.kind == .invalidRequest, "part \(name.debugDescription) rejected: \(error)")
        }
    }
    check(form.count == expected.count, "count \(form.count) != \(expected.count)")
    let hasStream = expected.contains { $0.kind == .stream }
    check(form.isStreamed(inMemoryThreshold: .max) == hasStream, "isStreamed")

    // The streamed body, twice (it must replay), and the in-memory one.
    let streamed = stream(form)
    check("\(streamed)" == "\(stream(form))", "the streamed body does not replay the same")
    if streamLengthsWrong {
        guard case .failure(let error) = streamed else {
            check(false, "a stream part of the wrong length was sent")
            return 0
        }
        check(error.kind == .uploadFailed || (streamHoldsBoundary && error.kind == .invalidRequest), "wrong-length stream failed with \(error)")
        return 0
    }
    if streamHoldsBoundary {
        guard case .failure(let error) = streamed else {
            check(false, "a stream part holding the caller's boundary was sent")
            return 0
        }
        check([.invalidRequest, .uploadFailed].contains(error.kind), "a stream holding the boundary failed with \(error)")
        return 0
    }
    guard case .success(let body) = streamed else {
        check(false, "streaming failed: \(streamed)")
        return 0
    }
    check(Int64(body.count) == form.contentLength, "body of \(body.count) bytes, contentLength \(form.contentLength)")
    do {
        let data = try form.encodedData()
        check(!hasStream && Array(data) == body, "encodedData differs from the stream")
    } catch {
        check(hasStream && error.kind == .invalidRequest, "encodedData failed: \(error)")
    }

    // Parse back.
    let delimiter = Array("\r\n--\(form.boundary)".utf8)
    let collides = expected.contains { range(of: delimiter, in: Array("\r\n".utf8) + $0.content, from: 0) != nil }
    // Content holding a caller's boundary was refused above; a random one cannot occur.
    check(!collides, "a part holds the boundary's delimiter and was accepted")
    guard let parts = parseBody(body, boundary: form.boundary) else {
        check(false, "the body does not parse: \(String(decoding: body, as: UTF8.self).debugDescription)")
        return 0
    }
    check(parts.count == expected.count, "\(parts.count) parts parsed, \(expected.count) added")
    for (part, want) in zip(parts, expected) {
        var disposition = "Content-Disposition: form-data; name=\"\(escaped(want.name))\""
        if let fileName = want.fileName { disposition += "; filename=\"\(escaped(fileName))\"" }
        var lines = part.headers.components(separatedBy: "\r\n")
        check(lines.removeLast() == "", "header block does not end in CRLF")
        check(lines.first == disposition, "\(lines) does not start with \(disposition)")
        let contentType = lines.dropFirst().first
        switch (want.kind, want.mimeType) {
        case (_, let mime?): check(lines.count == 2 && contentType == "Content-Type: \(mime)", "content type \(lines)")
        case (.text, nil), (.data, nil) where want.fileName == nil: check(lines.count == 1, "unexpected \(lines)")
        default:
            check(
                lines.count == 2 && contentType.map { $0.hasPrefix("Content-Type: ") && validMIME(String($0.dropFirst(14))) } == true,
                "content type \(lines)")
        }
        check(part.content == want.content, "content \(part.content) != \(want.content)")
    }
    return 0
}

/// The executable's entry point (SwiftPM aliases `main` to it): libFuzzer's driver.
@_cdecl("multipart_main")
public func multipartMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1)!, size) }
}
