import Foundation
import Testing

@testable import CurlewXML

/// The unkeyed container of ``XMLTreeDecoder``, driven by hand-written `init(from:)`
/// implementations: the concrete-type overloads and nested containers that synthesized
/// conformances and `Array` never call.
@Suite("XMLTreeDecoder unkeyed container")
struct XMLUnkeyedContainerTests {
    private func decode<T: Decodable>(_ type: T.Type, _ xml: String) throws -> T {
        try XMLTreeDecoder().decode(type, from: try XMLTree(string: xml))
    }

    /// One value of every type with its own overload, read in order from the child elements.
    struct EveryScalar: Decodable, Equatable {
        var bool = false, string = "", double = 0.0, float: Float = 0
        var int = 0, int8: Int8 = 0, int16: Int16 = 0, int32: Int32 = 0, int64: Int64 = 0
        var uint: UInt = 0, uint8: UInt8 = 0, uint16: UInt16 = 0, uint32: UInt32 = 0, uint64: UInt64 = 0

        init() {}

        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            #expect(list.count == 14)
            bool = try list.decode(Bool.self)
            string = try list.decode(String.self)
            double = try list.decode(Double.self)
            float = try list.decode(Float.self)
            int = try list.decode(Int.self)
            int8 = try list.decode(Int8.self)
            int16 = try list.decode(Int16.self)
            int32 = try list.decode(Int32.self)
            int64 = try list.decode(Int64.self)
            #expect(list.currentIndex == 9)
            uint = try list.decode(UInt.self)
            uint8 = try list.decode(UInt8.self)
            uint16 = try list.decode(UInt16.self)
            uint32 = try list.decode(UInt32.self)
            #expect(!list.isAtEnd)
            uint64 = try list.decode(UInt64.self)
            #expect(list.isAtEnd)
            #expect(list.currentIndex == 14)
        }
    }

    @Test func everyScalarOverloadReadsTheNextElement() throws {
        let xml = """
            <row><v>true</v><v> spaced text </v><v>2.5</v><v>-0.25</v><v>-7</v><v>-128</v><v>32767</v>
            <v>-2147483648</v><v>9223372036854775807</v><v>7</v><v>255</v><v>65535</v><v>4294967295</v>
            <v>18446744073709551615</v></row>
            """
        var expected = EveryScalar()
        expected.bool = true
        expected.string = " spaced text " // strings keep their whitespace by default
        expected.double = 2.5
        expected.float = -0.25
        expected.int = -7
        expected.int8 = .min
        expected.int16 = .max
        expected.int32 = .min
        expected.int64 = .max
        expected.uint = 7
        expected.uint8 = .max
        expected.uint16 = .max
        expected.uint32 = .max
        expected.uint64 = .max
        let decoded = try decode(EveryScalar.self, xml)
        #expect(decoded == expected, "\(decoded)")
    }

    /// Reads optionals with `decodeNil`, the way hand-written decoders do.
    struct Sparse: Decodable, Equatable {
        var values: [Int?] = []
        var nilAtEnd = true

        init(values: [Int?]) { self.values = values; nilAtEnd = false }

        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            while !list.isAtEnd {
                if try list.decodeNil() {
                    values.append(nil)
                } else {
                    values.append(try list.decode(Int.self))
                }
            }
            nilAtEnd = try list.decodeNil()
        }
    }

    @Test func decodeNilConsumesOnlyEmptyElements() throws {
        // <v/> and <v></v> are empty; <v a="1"/> has an attribute and <v>0</v> text, so they are values.
        let sparse = try decode(Sparse.self, "<r><v>1</v><v/><v></v><v>0</v></r>")
        #expect(sparse == Sparse(values: [1, nil, nil, 0]))
        #expect(sparse.nilAtEnd == false, "decodeNil at the end is false, not an error")

        let error = #expect(throws: DecodingError.self) {
            try decode(Sparse.self, "<r><v/><v a=\"1\"/></r>")
        }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected a type mismatch for an element with only an attribute, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.intValue) == [1], "decodeNil did not consume <v a=\"1\"/>")
    }

    @Test func readingPastTheEndNamesTheMissingIndex() throws {
        struct Three: Decodable {
            init(from decoder: any Decoder) throws {
                var list = try decoder.unkeyedContainer()
                for _ in 0..<3 { _ = try list.decode(String.self) }
            }
        }
        _ = try decode(Three.self, "<r><a>1</a><b>2</b><c>3</c></r>")
        let error = #expect(throws: DecodingError.self) { try decode(Three.self, "<r><a>1</a><b>2</b></r>") }
        guard case .valueNotFound(let type, let context)? = error else {
            Issue.record("expected valueNotFound, got \(String(describing: error))")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(String.self))
        #expect(context.codingPath.map(\.intValue) == [2])
        #expect(context.codingPath.map(\.stringValue) == ["Index 2"])
        #expect(context.debugDescription.contains("the list has 2"))

        // Every way of taking the next element checks that there is one.
        struct Exhausted: Decodable {
            enum Kind: String, Decodable { case keyed, unkeyed, superDecoder }
            init(from decoder: any Decoder) throws {
                var list = try decoder.unkeyedContainer()
                let kind = try list.decode(Kind.self)
                switch kind {
                case .keyed: _ = try list.nestedContainer(keyedBy: XMLIndexKey.self)
                case .unkeyed: _ = try list.nestedUnkeyedContainer()
                case .superDecoder: _ = try list.superDecoder()
                }
            }
        }
        for kind in ["keyed", "unkeyed", "superDecoder"] {
            let error = #expect(throws: DecodingError.self, "\(kind)") { try decode(Exhausted.self, "<r><k>\(kind)</k></r>") }
            guard case .valueNotFound(_, let context)? = error else {
                Issue.record("\(kind): expected valueNotFound, got \(String(describing: error))")
                continue
            }
            #expect(context.codingPath.map(\.intValue) == [1], "\(kind)")
        }
    }

    /// Nested containers and a super decoder, each taking one element of the list.
    struct Mixed: Decodable, Equatable {
        var id = "", name = "", children: [String] = [], text = "", after = 0

        init(id: String, name: String, children: [String], text: String, after: Int) {
            (self.id, self.name, self.children, self.text, self.after) = (id, name, children, text, after)
        }

        enum Keys: String, CodingKey { case id, name }

        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            let keyed = try list.nestedContainer(keyedBy: Keys.self)
            id = try keyed.decode(String.self, forKey: .id)
            name = try keyed.decode(String.self, forKey: .name)
            #expect(keyed.codingPath.map(\.intValue) == [0])

            var inner = try list.nestedUnkeyedContainer()
            #expect(inner.codingPath.map(\.intValue) == [1])
            while !inner.isAtEnd { children.append(try inner.decode(String.self)) }

            let element = try list.superDecoder()
            #expect(element.codingPath.map(\.intValue) == [2])
            text = try element.singleValueContainer().decode(String.self)

            after = try list.decode(Int.self)
            #expect(list.isAtEnd)
        }
    }

    @Test func nestedContainersAndSuperDecoderEachTakeOneElement() throws {
        let xml = "<r><item id=\"7\"><name>seven</name></item><kids><k>a</k><k>b</k></kids><t>hello</t><n>42</n></r>"
        #expect(try decode(Mixed.self, xml) == Mixed(id: "7", name: "seven", children: ["a", "b"], text: "hello", after: 42))
    }

    @Test func errorsInsideAnElementCarryItsIndex() throws {
        let error = #expect(throws: DecodingError.self) {
            try decode(Mixed.self, "<r><item id=\"7\"><name>seven</name></item><kids/><t>hi</t><n>many</n></r>")
        }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected a type mismatch, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.intValue) == [3])
    }

    @Test func indexKeysAreMadeFromIntegersOnly() {
        #expect(XMLIndexKey(stringValue: "3") == nil)
        let key = XMLIndexKey(intValue: 3)
        #expect(key?.intValue == 3)
        #expect(key?.stringValue == "Index 3")
    }
}
