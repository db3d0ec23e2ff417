import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A DNS message (RFC 1035 §4) as far as the DNS-over-HTTPS route needs one: the header, the
/// questions and the answer records. Names are written without compression and read with it.
public struct DNSMessage: Sendable, Hashable {
    /// A question: a name, a record type (1 is A, 28 is AAAA) and a class (1 is IN).
    public struct Question: Sendable, Hashable {
        public var name: String
        public var type: UInt16
        public var recordClass: UInt16

        public init(name: String, type: UInt16, recordClass: UInt16 = 1) {
            self.name = name
            self.type = type
            self.recordClass = recordClass
        }
    }

    /// A resource record with its data as bytes.
    public struct Record: Sendable, Hashable {
        public var name: String
        public var type: UInt16
        public var recordClass: UInt16
        public var timeToLive: UInt32
        public var data: [UInt8]

        public init(name: String, type: UInt16, recordClass: UInt16 = 1, timeToLive: UInt32, data: [UInt8]) {
            self.name = name
            self.type = type
            self.recordClass = recordClass
            self.timeToLive = timeToLive
            self.data = data
        }
    }

    public static let typeA: UInt16 = 1
    public static let typeAAAA: UInt16 = 28

    public var id: UInt16
    /// QR, opcode, AA, TC, RD, RA, Z and the response code, as the header's second field.
    public var flags: UInt16
    public var questions: [Question]
    public var answers: [Record]

    public init(id: UInt16, flags: UInt16, questions: [Question], answers: [Record] = []) {
        self.id = id
        self.flags = flags
        self.questions = questions
        self.answers = answers
    }

    /// The response code (the low four bits of ``flags``): 0 no error, 3 no such name.
    public var responseCode: UInt16 { flags & 0x000F }
    /// Whether this is a response (QR set).
    public var isResponse: Bool { flags & 0x8000 != 0 }

    /// The message's bytes; authority and additional sections are empty.
    public func encoded() throws -> [UInt8] {
        var bytes: [UInt8] = []
        func put16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func put32(_ value: UInt32) { put16(UInt16(value >> 16)); put16(UInt16(value & 0xFFFF)) }
        func putName(_ name: String) throws {
            for label in name.split(separator: ".", omittingEmptySubsequences: true) {
                let utf8 = Array(label.utf8)
                guard utf8.count <= 63 else { throw TestServerError("the DNS label \(label) is longer than 63 bytes") }
                bytes.append(UInt8(utf8.count))
                bytes += utf8
            }
            bytes.append(0)
        }
        put16(id)
        put16(flags)
        put16(UInt16(questions.count))
        put16(UInt16(answers.count))
        put16(0)
        put16(0)
        for question in questions {
            try putName(question.name)
            put16(question.type)
            put16(question.recordClass)
        }
        for record in answers {
            try putName(record.name)
            put16(record.type)
            put16(record.recordClass)
            put32(record.timeToLive)
            guard record.data.count <= 0xFFFF else { throw TestServerError("DNS record data longer than 65535 bytes") }
            put16(UInt16(record.data.count))
            bytes += record.data
        }
        return bytes
    }

    /// The message in `bytes`; throws for a message cut short, a bad label or a loop of
    /// compression pointers. Authority and additional records are skipped.
    public static func decode(_ bytes: [UInt8]) throws -> DNSMessage {
        var reader = Reader(bytes: bytes)
        let id = try reader.u16()
        let flags = try reader.u16()
        let questionCount = try reader.u16()
        let answerCount = try reader.u16()
        _ = try reader.u16()
        _ = try reader.u16()
        var questions: [Question] = []
        for _ in 0..<questionCount {
            let name = try reader.name()
            questions.append(Question(name: name, type: try reader.u16(), recordClass: try reader.u16()))
        }
        var answers: [Record] = []
        for _ in 0..<answerCount {
            let name = try reader.name()
            let type = try reader.u16()
            let recordClass = try reader.u16()
            let timeToLive = UInt32(try reader.u16()) << 16 | UInt32(try reader.u16())
            let length = Int(try reader.u16())
            answers.append(Record(name: name, type: type, recordClass: recordClass, timeToLive: timeToLive, data: try reader.take(length)))
        }
        return DNSMessage(id: id, flags: flags, questions: questions, answers: answers)
    }

    /// The four or sixteen bytes of an IPv4 or IPv6 address, or nil.
    public static func addressBytes(_ text: String) -> [UInt8]? {
        if text.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
            return withUnsafeBytes(of: &address) { Array($0) }
        }
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func u16() throws -> UInt16 {
            let pair = try take(2)
            return UInt16(pair[0]) << 8 | UInt16(pair[1])
        }

        mutating func take(_ count: Int) throws -> [UInt8] {
            guard count >= 0, position + count <= bytes.count else {
                throw TestServerError("the DNS message ends at \(bytes.count) bytes, inside a field at \(position)")
            }
            defer { position += count }
            return Array(bytes[position..<(position + count)])
        }

        /// A name at the current position, following compression pointers (at most 64 of them).
        mutating func name() throws -> String {
            var labels: [String] = []
            var cursor = position
            var jumps = 0
            var endAfterFirstPointer: Int?
            while true {
                guard cursor < bytes.count else { throw TestServerError("a DNS name runs past the message's end") }
                let length = Int(bytes[cursor])
                if length & 0xC0 == 0xC0 {
                    guard cursor + 1 < bytes.count else { throw TestServerError("a DNS name pointer is cut short") }
                    jumps += 1
                    guard jumps <= 64 else { throw TestServerError("DNS name pointers loop") }
                    if endAfterFirstPointer == nil { endAfterFirstPointer = cursor + 2 }
                    cursor = (length & 0x3F) << 8 | Int(bytes[cursor + 1])
                    continue
                }
                guard length & 0xC0 == 0 else { throw TestServerError("a DNS label has the reserved length bits \(length >> 6)") }
                cursor += 1
                if length == 0 { break }
                guard cursor + length <= bytes.count else { throw TestServerError("a DNS label runs past the message's end") }
                labels.append(String(decoding: bytes[cursor..<(cursor + length)], as: UTF8.self))
                cursor += length
            }
            position = endAfterFirstPointer ?? cursor
            return labels.joined(separator: ".")
        }
    }
}
