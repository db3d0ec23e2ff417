import Foundation
import HTTPTypes
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a `bytes` stream reads from.
enum StreamSource: Sendable {
    case transfer(Transfer)
    case cached(CachedBodyStream)
}
