import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stored response without its body: what the cache needs to decide, kept in memory by both
/// stores (the disk store writes it at the front of each entry's file).
struct CacheEntryHead: Codable, Sendable, Equatable {
    /// The cache key: the URL without its fragment.
    var key: String
    var status: Int
    var reason: String
    /// The header fields as name/value pairs, in order.
    var fields: [[String]]
    /// For a response with `Vary`: the request's values of each named field (lowercased name,
    /// values joined by ", "; absent fields are missing from the dictionary).
    var vary: [String: String]?
    var requestTime: Date
    var responseTime: Date
    var bodyLength: Int
    var bodyChecksum: UInt64

    var headerFields: HTTPFields {
        var result = HTTPFields()
        for pair in fields where pair.count == 2 {
            if let name = HTTPField.Name(pair[0]) { result.append(HTTPField(name: name, value: pair[1])) }
        }
        return result
    }

    var response: HTTPResponse {
        HTTPResponse(status: HTTPResponse.Status(code: status, reasonPhrase: reason), headerFields: headerFields)
    }

    static func pairs(_ fields: HTTPFields) -> [[String]] {
        fields.map { [$0.name.rawName, $0.value] }
    }

    /// Roughly how many bytes the head takes, for the stores' size limits.
    var approximateSize: Int {
        key.utf8.count + 128 + fields.reduce(0) { $0 + $1.reduce(0) { $0 + $1.utf8.count + 16 } }
    }
}

/// Where a stored body is: in memory, or in a disk entry's file after its head.
enum CachedBody: Sendable {
    case memory(Data)
    case file(path: String, offset: Int)
}

/// A stored response.
struct CacheEntry: Sendable {
    var head: CacheEntryHead
    var body: CachedBody
}

/// FNV-1a, 64 bits: the checksum of disk entries (it catches torn and flipped bytes, not attacks).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        value = hash
    }

    static func of(_ data: Data) -> UInt64 {
        var hash = FNV1a()
        data.withUnsafeBytes { hash.update($0) }
        return hash.value
    }
}

/// Reads stored bodies in chunks, checking their length and checksum, so that a body of any
/// size is served without holding it all in memory and a damaged one is never served.
enum CachedBodyReader {
    static let chunkSize = 256 << 10

    /// Calls `consume` with each chunk of the body; throws when the file is gone, short or damaged
    /// (the bytes already handed to `consume` must then be thrown away by the caller).
    static func forEachChunk(
        of entry: CacheEntry, _ consume: (UnsafeRawBufferPointer) throws(CurlewError) -> Void
    ) throws(CurlewError) {
        var hash = FNV1a()
        switch entry.body {
        case .memory(let data):
            try withBytes(of: data, consume)
            return
        case .file(let path, let offset):
            let descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else { throw damaged(entry, "cannot open \(path)") }
            defer { close(descriptor) }
            guard lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else { throw damaged(entry, "cannot seek") }
            var remaining = entry.head.bodyLength
            var buffer = [UInt8](repeating: 0, count: min(chunkSize, max(remaining, 1)))
            while remaining > 0 {
                let wanted = min(buffer.count, remaining)
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw damaged(entry, "the body is shorter than recorded") }
                try withBytes(of: buffer) { (all: UnsafeRawBufferPointer) throws(CurlewError) in
                    let piece = UnsafeRawBufferPointer(rebasing: all[0..<count])
                    hash.update(piece)
                    try consume(piece)
                }
                remaining -= count
            }
        }
        guard hash.value == entry.head.bodyChecksum else { throw damaged(entry, "the body's checksum does not match") }
    }

    /// The whole body, for collected responses.
    static func data(of entry: CacheEntry) throws(CurlewError) -> Data {
        if case .memory(let data) = entry.body { return data }
        var data = Data()
        data.reserveCapacity(entry.head.bodyLength)
        try forEachChunk(of: entry) { data.append(contentsOf: $0) }
        return data
    }

    private static func damaged(_ entry: CacheEntry, _ reason: String) -> CurlewError {
        CurlewError(.fileSystem, "the cached response for \(entry.head.key) is damaged: \(reason)")
    }
}

/// `withUnsafeBytes` for a closure with a typed error.
func withBytes<Bytes: ContiguousBytes>(
    of value: Bytes, _ body: (UnsafeRawBufferPointer) throws(CurlewError) -> Void
) throws(CurlewError) {
    var failure: CurlewError?
    value.withUnsafeBytes { bytes in
        do throws(CurlewError) { try body(bytes) } catch { failure = error }
    }
    if let failure { throw failure }
}
