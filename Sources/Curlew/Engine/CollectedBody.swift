import Foundation

/// The bytes of a collected body as they arrive, in one buffer of Curlew's own, handed over as
/// `Data` without a copy when the transfer ends (``take()``).
///
/// Appending to a `Data` cost about 900 instructions a chunk (its representation's checks and
/// exclusivity accesses around the copy); here a chunk costs its copy and a comparison. Only the
/// curl thread touches it, inside its ``TransferContext``.
struct CollectedBody: ~Copyable {
    private var bytes: UnsafeMutableRawPointer?
    private var capacity = 0
    /// The bytes kept so far.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Makes room for `total` bytes in all, at once rather than by doubling.
    mutating func reserve(_ total: Int) {
        if total > capacity { grow(to: total) }
    }

    /// Appends `piece`; false only when memory runs out, which keeps nothing of it.
    mutating func append(_ piece: UnsafeRawBufferPointer) -> Bool {
        guard let source = piece.baseAddress, piece.count > 0 else { return true }
        if piece.count > capacity - count {
            guard grow(to: max(count + piece.count, capacity * 2)) else { return false }
        }
        guard let bytes else { return false }
        (bytes + count).copyMemory(from: source, byteCount: piece.count)
        count += piece.count
        return true
    }

    /// The bytes as `Data`, which takes the buffer over (freed with it); the body is empty after.
    mutating func take() -> Data {
        guard let taken = bytes, count > 0 else { return Data() }
        let data = Data(bytesNoCopy: taken, count: count, deallocator: .free)
        bytes = nil
        capacity = 0
        count = 0
        return data
    }

    @discardableResult
    private mutating func grow(to wanted: Int) -> Bool {
        guard let grown = realloc(bytes, wanted) else { return false }
        bytes = grown
        capacity = wanted
        return true
    }

    deinit {
        free(bytes)
    }
}
