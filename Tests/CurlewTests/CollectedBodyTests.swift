@testable import Curlew
import Foundation
import Testing

/// The collected body keeps every chunk in order, across growth, and hands its bytes over
/// once.
@Suite struct CollectedBodyTests {
    @Test func chunksArriveInOrderAcrossGrowth() {
        var body = CollectedBody()
        var expected = Data()
        for index in 0..<300 {
            let chunk = Data((0..<(index % 37 + 1)).map { UInt8(truncatingIfNeeded: $0 &+ index) })
            expected.append(chunk)
            #expect(chunk.withUnsafeBytes { body.append($0) })
        }
        let count = body.count
        #expect(count == expected.count)
        #expect(body.take() == expected)
        let isEmpty = body.isEmpty
        #expect(isEmpty)
        #expect(body.take() == Data(), "taken once")
    }

    @Test func aReservationHoldsTheDeclaredLengthAndMoreStillFits() {
        var body = CollectedBody()
        body.reserve(4)
        let bytes: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        #expect(bytes[0..<4].withUnsafeBytes { body.append($0) })
        #expect(bytes[4...].withUnsafeBytes { body.append($0) })
        #expect(body.take() == Data(bytes))
    }

    @Test func anEmptyBodyIsEmptyData() {
        var body = CollectedBody()
        #expect([UInt8]().withUnsafeBytes { body.append($0) })
        let isEmpty = body.isEmpty
        #expect(isEmpty)
        #expect(body.take().isEmpty)
    }
}
