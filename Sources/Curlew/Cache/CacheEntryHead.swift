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
    /// The cache key: the URL without its fragment or user information, and for a request with
    /// credentials or cookies its partition (see ``CacheKey``).
    var key: String
    var status: Int
    var reason: String
    /// The header fields as name/value pairs, in order.
    var fields: [[String]]
    /// For a response with `Vary`: a digest of the request's value of each named field
    /// (lowercased name → ``CacheRules/varyDigest(name:value:)`` of the values joined by ", ";
    /// absent fields are missing from the dictionary). Never the values: the head goes to disk.
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
