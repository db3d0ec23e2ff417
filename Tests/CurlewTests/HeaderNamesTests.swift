import Foundation
import HTTPTypes
import Testing

@testable import Curlew

@Suite("Header names from raw bytes")
struct HeaderNamesTests {
    private func name(_ text: String) -> HTTPField.Name? {
        Array(text.utf8).withUnsafeBytes { HeaderNames.name($0) }
    }

    private func role(_ text: String) -> HeaderNames.Role {
        Array(text.utf8).withUnsafeBytes { HeaderNames.role($0) }
    }

    @Test func commonNamesMatchInAnyCase() {
        #expect(name("Content-Type") == .contentType)
        #expect(name("CONTENT-LENGTH") == .contentLength)
        #expect(name("etag") == .eTag)
        #expect(name("Set-Cookie") == .setCookie)
    }

    @Test func otherNamesAreValidatedAndInvalidOnesRejected() {
        #expect(name("X-Custom-Thing")?.canonicalName == "x-custom-thing")
        #expect(name("Content-Typf")?.canonicalName == "content-typf")
        #expect(name("bad name") == nil)
        #expect(name("") == nil)
    }

    @Test func theFieldsTheTransferReadsAreToldApart() {
        #expect(role("content-length") == .contentLength)
        #expect(role("Content-Encoding") == .contentEncoding)
        #expect(role("LOCATION") == .location)
        #expect(role("Transfer-Encoding") == .transferEncoding)
        #expect(role("set-COOKIE") == .setCookie)
        #expect(role("Content-Type") == .contentType)
        #expect(role("X-Location") == .other)
        #expect(role("Locatioo") == .other)
        #expect(role("Content-Typf") == .other)
        #expect(role("") == .other)
    }

    /// The word-wise comparison against the byte-wise rule it replaced, over every name the
    /// roles use in many spellings: each byte of each name is swapped in turn for every byte
    /// value (so a CR where `-` is, `@` or `[` beside the capitals, bytes over 0x7F), in upper
    /// and lower case, and longer and shorter names never match.
    @Test func wordWiseMatchingAgreesWithByteWiseOnEveryOneByteChange() {
        let names: [(String, HeaderNames.Role)] = [
            ("location", .location), ("set-cookie", .setCookie), ("content-type", .contentType),
            ("content-length", .contentLength), ("content-encoding", .contentEncoding),
            ("transfer-encoding", .transferEncoding),
        ]
        func byteWise(_ bytes: [UInt8], _ lowercase: [UInt8]) -> Bool {
            bytes.count == lowercase.count
                && zip(bytes, lowercase).allSatisfy { byte, expected in
                    (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == expected
                }
        }
        var compared = 0
        for (name, expectedRole) in names {
            let lowercase = Array(name.utf8)
            for spelling in [lowercase, Array(name.uppercased().utf8)] {
                for index in spelling.indices {
                    for value in UInt8.min...UInt8.max {
                        var candidate = spelling
                        candidate[index] = value
                        let actual = candidate.withUnsafeBytes { HeaderNames.role($0) }
                        #expect((actual == expectedRole) == byteWise(candidate, lowercase), "\(candidate)")
                        compared += 1
                    }
                }
            }
            #expect(role(name + "x") == .other)
            #expect(role(String(name.dropLast())) != expectedRole)
        }
        #expect(compared == 2 * 256 * (8 + 10 + 12 + 14 + 16 + 17))
        #expect(role("content\rlength") == .other)
        #expect(role("CONTENT-length") == .contentLength)
    }
}
