import CFuzzSupport
import Foundation

/// Runs libFuzzer with `callback` as the fuzz target; called from each target's
/// `<module>_main` (see CFuzzSupport.h for why there is one).
public func runLibFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var argc = argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&argc, &argv, callback)
}

/// Reads structured values from the bytes of one fuzz input, front to back. Once the bytes
/// run out every read returns zero, empty or false, so any input decodes to something.
public struct FuzzInput {
    public let bytes: [UInt8]
    public private(set) var position = 0

    public init(_ start: UnsafeRawPointer, _ count: Int) {
        bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public var isAtEnd: Bool { position >= bytes.count }
    public var remainingCount: Int { max(0, bytes.count - position) }

    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A number in `range` (small ranges only: it reads one or two bytes).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = range.upperBound - range.lowerBound + 1
        let raw = width <= 256 ? Int(byte()) : Int(byte()) << 8 | Int(byte())
        return range.lowerBound + raw % width
    }

    /// Up to `limit` bytes, the count read first.
    public mutating func bytes(upTo limit: Int) -> [UInt8] {
        let count = min(int(in: 0...limit), remainingCount)
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// Text of up to `limit` UTF-8 bytes, invalid sequences replaced.
    public mutating func string(upTo limit: Int) -> String {
        String(decoding: bytes(upTo: limit), as: UTF8.self)
    }

    /// Text of up to `limit` bytes drawn from `alphabet`, one byte per character chosen.
    public mutating func string(upTo limit: Int, from alphabet: [String]) -> String {
        let count = min(int(in: 0...limit), remainingCount)
        var text = ""
        for _ in 0..<count { text += alphabet[Int(byte()) % alphabet.count] }
        return text
    }

    /// All bytes not read yet.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}

/// A small deterministic generator (splitmix64) for chunk boundaries.
public struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Ways to cut `count` bytes into consecutive chunks, for checking that a stream parser's
/// output does not depend on where the chunks end: the whole input at once, one byte at a
/// time, and a pseudo-random cutting from `seed` (chunks of 0 to `maximumChunk` bytes, so
/// empty chunks are fed too).
public func chunkings(count: Int, seed: UInt64, maximumChunk: Int = 64) -> [[Range<Int>]] {
    var result: [[Range<Int>]] = [[0..<count]]
    result.append((0..<count).map { $0..<$0 + 1 })
    var generator = SplitMix(seed: seed)
    var cuts: [Range<Int>] = []
    var start = 0
    while start < count {
        let size = Int.random(in: 0...maximumChunk, using: &generator)
        let end = min(count, start + size)
        cuts.append(start..<end)
        start = end
    }
    result.append(cuts)
    return result
}

/// Fails the fuzz run (libFuzzer saves the input) when `condition` is false.
public func check(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() {
        FileHandle.standardError.write(Data("fuzz check failed at \(file):\(line): \(message())\n".utf8))
        abort()
    }
}

/// Runs `body` to completion and returns its result, blocking the calling thread. For async
/// code that never really suspends (sequences over in-memory chunks); the fuzz entry point
/// is synchronous.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// Written by one task, read after it signalled: the semaphore orders the accesses.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// An async sequence over chunks already in memory.
public struct ChunkSequence: AsyncSequence, Sendable {
    public typealias Element = Data
    public let chunks: [Data]
    public init(_ chunks: [Data]) { self.chunks = chunks }
    public func makeAsyncIterator() -> Iterator { Iterator(chunks: chunks) }
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: [Data]
        var index = 0
        public mutating func next() async -> Data? {
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            return chunks[index]
        }
    }
}

/// `bytes` cut as `cuts` says, each chunk a `Data` of its own (with a non-zero start index
/// half of the time, as slices of a larger buffer have).
public func chunks(of bytes: [UInt8], cuts: [Range<Int>]) -> [Data] {
    cuts.enumerated().map { index, range in
        if index % 2 == 1 {
            let padded = Data([0xAA] + bytes[range] + [0xBB])
            return padded[(padded.startIndex + 1)..<(padded.endIndex - 1)]
        }
        return Data(bytes[range])
    }
}

/// Whether `byte` is a `tchar` of RFC 9110 §5.6.2, the characters of a field name: the model the
/// header targets check Curlew against.
public func isTchar(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    default:
        return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}
