import Foundation

/// Pulls chunks from a base iterator into a ``RecordFramer`` and hands out records.
struct RecordIterator<Base: AsyncIteratorProtocol> where Base.Element == Data {
    private var base: Base
    private var framer: RecordFramer
    private var baseFinished = false
    let url: URL?

    init(base: Base, framer: RecordFramer, url: URL?) {
        self.base = base
        self.framer = framer
        self.url = url
    }

    /// The next record, or nil at the end of input. Errors of the framer get the URL.
    mutating func next() async throws -> Data? {
        do {
            while true {
                if let record = try framer.nextRecord() { return record }
                if baseFinished { return try framer.finishCheckingLength() }
                guard let chunk = try await base.next() else {
                    baseFinished = true
                    return try framer.finishCheckingLength()
                }
                framer.feed(chunk)
            }
        } catch let error as CurlewError {
            throw error.adding(url: url)
        }
    }
}
