import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
