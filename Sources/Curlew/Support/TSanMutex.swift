// ThreadSanitizer builds only (`-Xswiftc -DCURLEW_TSAN`, see scripts/sanitize.sh and
// docs/SANITIZERS.md). Without that condition this file is empty.
//
// `Synchronization.Mutex` on Linux waits on a futex through a raw syscall, which TSan does not
// intercept: it sees no happens-before edge between an unlock and the next lock and reports a
// race on every Mutex-guarded access. Under CURLEW_TSAN, `TSanMutex` stands in for it: the same
// API (`init`, `withLock`, `withLockIfAvailable`) over a `pthread_mutex_t`, which TSan models.
//
// The internal `Mutex` typealias below shadows `Synchronization.Mutex` in this module
// (declarations of the current module win over imported ones), so no other file of Curlew
// changes. Other targets can spell `CurlewMutex`, which is `Synchronization.Mutex` in every
// other build.
#if CURLEW_TSAN
import Glibc

/// A `pthread_mutex_t`-backed stand-in for `Synchronization.Mutex`, visible to ThreadSanitizer.
/// `@unchecked Sendable` is safe: the value is only ever reached inside `withLock`, under the mutex.
package struct TSanMutex<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
    private final class Storage {
        let lock: UnsafeMutablePointer<pthread_mutex_t>
        var value: Value

        init(_ value: consuming Value) {
            lock = .allocate(capacity: 1)
            lock.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(lock, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
            self.value = value
        }

        deinit {
            pthread_mutex_destroy(lock)
            lock.deinitialize(count: 1)
            lock.deallocate()
        }
    }

    private let storage: Storage

    package init(_ initialValue: consuming sending Value) {
        storage = Storage(initialValue)
    }

    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(storage.lock)
        defer { pthread_mutex_unlock(storage.lock) }
        return try body(&storage.value)
    }

    package borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard pthread_mutex_trylock(storage.lock) == 0 else { return nil }
        defer { pthread_mutex_unlock(storage.lock) }
        return try body(&storage.value)
    }
}

typealias Mutex = TSanMutex
package typealias CurlewMutex = TSanMutex
#else
import Synchronization

package typealias CurlewMutex = Synchronization.Mutex
#endif
