import Foundation
import NIOCore
import Synchronization

/// The names a test server answers for at `/dns-query` (DNS over HTTPS, RFC 8484), and the
/// queries it received.
final class DNSZone: Sendable {
    private struct State {
        var addresses: [String: [String]] = [:]
        var queries: [DNSQueryRecord] = []
    }

    private let state = Mutex(State())

    /// Answers `name` (case-insensitive, without the final dot) with `addresses`; an empty list
    /// removes the name, which is then answered "no such name".
    func setAddresses(_ addresses: [String], for name: String) {
        state.withLock { $0.addresses[Self.key(name)] = addresses.isEmpty ? nil : addresses }
    }

    func addresses(for name: String) -> [String]? {
        state.withLock { $0.addresses[Self.key(name)] }
    }

    func record(_ query: DNSQueryRecord) {
        state.withLock { $0.queries.append(query) }
    }

    var queries: [DNSQueryRecord] { state.withLock { $0.queries } }

    private static func key(_ name: String) -> String {
        var key = name.lowercased()
        if key.hasSuffix(".") { key.removeLast() }
        return key
    }
}

/// One question a test server's DNS-over-HTTPS route received.
public struct DNSQueryRecord: Sendable, Hashable {
    /// The name asked for, as sent.
    public let name: String
    /// 1 for A, 28 for AAAA.
    public let type: UInt16
    /// `GET` (`?dns=` base64url) or `POST` (`application/dns-message`).
    public let method: String

    public init(name: String, type: UInt16, method: String) {
        self.name = name
        self.type = type
        self.method = method
    }
}

/// `/dns-query`: DNS over HTTPS (RFC 8484) from a ``DNSZone``. A query comes as `GET
/// ?dns=<base64url, unpadded>` or as a `POST` body of type `application/dns-message`; the
/// answer is `application/dns-message` with A or AAAA records (time to live 60 s) for the
/// addresses set for the name, no records (NOERROR) for a known name without addresses of that
/// family, and NXDOMAIN for an unknown name. A malformed query gets 400.
enum DNSOverHTTPSRoutes {
    static func respond(_ request: ReceivedRequest, zone: DNSZone, allocator: ByteBufferAllocator) -> ResponseScript {
        let wire: [UInt8]
        switch request.method {
        case "GET":
            guard let text = request.queryValue("dns"), let bytes = base64URLDecoded(text) else {
                return Reply.text(request, status: 400, "expected ?dns=<base64url DNS message>\n", allocator: allocator)
            }
            wire = bytes
        case "POST":
            guard request.header("Content-Type")?.lowercased() == "application/dns-message" else {
                return Reply.text(request, status: 415, "expected Content-Type: application/dns-message\n", allocator: allocator)
            }
            wire = Array(request.body.readableBytesView)
        default:
            return Reply.text(request, status: 405, "GET or POST\n", headers: [("Allow", "GET, POST")], allocator: allocator)
        }
        let query: DNSMessage
        do {
            query = try DNSMessage.decode(wire)
        } catch {
            return Reply.text(request, status: 400, "not a DNS message: \(error)\n", allocator: allocator)
        }
        guard !query.isResponse, query.questions.count == 1, let question = query.questions.first else {
            return Reply.text(request, status: 400, "expected a query with one question\n", allocator: allocator)
        }
        zone.record(DNSQueryRecord(name: question.name, type: question.type, method: request.method))
        // QR, the query's opcode and RD, RA; response code 0 or 3 (NXDOMAIN).
        var flags: UInt16 = 0x8000 | (query.flags & 0x7900) | 0x0080
        var answers: [DNSMessage.Record] = []
        if let addresses = zone.addresses(for: question.name) {
            for address in addresses {
                guard let bytes = DNSMessage.addressBytes(address) else { continue }
                let type = bytes.count == 4 ? DNSMessage.typeA : DNSMessage.typeAAAA
                guard type == question.type else { continue }
                answers.append(DNSMessage.Record(name: question.name, type: type, timeToLive: 60, data: bytes))
            }
        } else {
            flags |= 3
        }
        let response = DNSMessage(id: query.id, flags: flags, questions: [question], answers: answers)
        guard let bytes = try? response.encoded() else {
            return Reply.text(request, status: 500, "could not encode the answer\n", allocator: allocator)
        }
        return Reply.fixed(
            request, headers: [("Content-Type", "application/dns-message")], body: allocator.buffer(bytes: bytes),
            allocator: allocator)
    }

    /// The bytes of unpadded base64url text (RFC 4648 §5), or nil.
    static func base64URLDecoded(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !standard.contains("=") else { return nil }
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) }
    }
}
