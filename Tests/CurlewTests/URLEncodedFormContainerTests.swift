import Foundation
import Testing

@testable import Curlew

/// The encoding containers behind ``URLEncodedFormEncoder``, driven by hand-written `encode(to:)`
/// implementations: the container calls that synthesized conformances never make.
@Suite("URLEncodedFormEncoder containers")
struct URLEncodedFormContainerTests {
    enum Key: String, CodingKey {
        case nothing, nested, list, inherited, item, late
    }

    /// Every container operation, in one value.
    struct EveryContainer: Encodable {
        let userInfoSeen = Recorder<Int>()

        func encode(to encoder: any Encoder) throws {
            userInfoSeen.append(encoder.userInfo.count)
            var root = encoder.container(keyedBy: Key.self)
            try root.encodeNil(forKey: .nothing)

            var nested = root.nestedContainer(keyedBy: Key.self, forKey: .nested)
            try nested.encode("n", forKey: .item)

            var list = root.nestedUnkeyedContainer(forKey: .list)
            #expect(list.count == 0)
            try list.encode(1)
            try list.encodeNil()
            var element = list.nestedContainer(keyedBy: Key.self)
            try element.encode("e", forKey: .item)
            var inner = list.nestedUnkeyedContainer()
            try inner.encode(2)
            try inner.encode(3)
            var fromSuper = list.superEncoder().singleValueContainer()
            try fromSuper.encode("s")
            #expect(list.count == 5, "each call above appended one element")

            var rootSuper = root.superEncoder().singleValueContainer()
            try rootSuper.encode(4)
            var keyedSuper = root.superEncoder(forKey: .inherited).container(keyedBy: Key.self)
            try keyedSuper.encode(true, forKey: .item)

            // Containers share their nodes: writing after the siblings were made still lands.
            try nested.encode("later", forKey: .late)
            try element.encode("later", forKey: .late)
        }
    }

    @Test func everyContainerOperationWritesItsPair() throws {
        let value = EveryContainer()
        let text = try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets, nilEncoding: .null).encode(value)
        let pairs = text.split(separator: "&").map { $0.removingPercentEncoding ?? String($0) }
        #expect(
            pairs == [
                "inherited[item]=1",
                "list[0]=1", "list[1]=null", "list[2][item]=e", "list[2][late]=later",
                "list[3][0]=2", "list[3][1]=3", "list[4]=s",
                "nested[item]=n", "nested[late]=later",
                "nothing=null",
                "super=4",
            ])
        #expect(value.userInfoSeen.all == [0], "the encoder offers no user info")
    }

    @Test func explicitNilsFollowTheNilEncoding() throws {
        struct Nils: Encodable {
            func encode(to encoder: any Encoder) throws {
                var root = encoder.container(keyedBy: Key.self)
                try root.encodeNil(forKey: .nothing)
                var list = root.nestedUnkeyedContainer(forKey: .list)
                try list.encodeNil()
                try list.encode("x")
            }
        }
        #expect(try URLEncodedFormEncoder().encode(Nils()) == "list%5B%5D=x")
        #expect(try URLEncodedFormEncoder(nilEncoding: .dropValue).encode(Nils()) == "list%5B%5D=&list%5B%5D=x&nothing=")
    }

    @Test func nestedKeysAreConvertedByTheKeyEncoding() throws {
        enum CamelKey: String, CodingKey { case outerValue, innerValue }
        struct Camel: Encodable {
            func encode(to encoder: any Encoder) throws {
                var root = encoder.container(keyedBy: CamelKey.self)
                var nested = root.nestedContainer(keyedBy: CamelKey.self, forKey: .outerValue)
                try nested.encodeNil(forKey: .innerValue)
                var list = root.nestedUnkeyedContainer(forKey: .innerValue)
                var element = list.nestedContainer(keyedBy: CamelKey.self)
                try element.encode(1, forKey: .outerValue)
            }
        }
        let text = try URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase, nilEncoding: .null).encode(Camel())
        #expect(text.removingPercentEncoding == "inner_value[][outer_value]=1&outer_value[inner_value]=null")
    }

    /// A value that cannot be encoded, placed by `place`; the error names its coding path.
    struct Misplaced: Encodable {
        let place: @Sendable (any Encoder) throws -> Void
        func encode(to encoder: any Encoder) throws { try place(encoder) }
    }

    private func codingPath(of value: Misplaced) throws -> [String] {
        do {
            _ = try URLEncodedFormEncoder().encode(value)
        } catch let error as CurlewError {
            #expect(error.kind == .invalidRequest)
            guard case .invalidValue(_, let context) = error.underlying as? EncodingError else {
                Issue.record("expected an EncodingError.invalidValue, got \(String(describing: error.underlying))")
                return []
            }
            return context.codingPath.map(\.stringValue)
        }
        Issue.record("expected an error")
        return []
    }

    @Test func errorsNameThePathThroughNestedContainers() throws {
        let inNested = Misplaced { encoder in
            var root = encoder.container(keyedBy: Key.self)
            var nested = root.nestedContainer(keyedBy: Key.self, forKey: .nested)
            try nested.encode(Double.nan, forKey: .item)
        }
        #expect(try codingPath(of: inNested) == ["nested", "item"])

        let inList = Misplaced { encoder in
            var root = encoder.container(keyedBy: Key.self)
            var list = root.nestedUnkeyedContainer(forKey: .list)
            try list.encode(1)
            var inner = list.nestedUnkeyedContainer()
            try inner.encode(2)
            try inner.encode(Double.infinity)
        }
        #expect(try codingPath(of: inList) == ["list", "1", "1"])

        let inElement = Misplaced { encoder in
            var root = encoder.container(keyedBy: Key.self)
            var list = root.nestedUnkeyedContainer(forKey: .list)
            try list.encodeNil()
            var element = list.nestedContainer(keyedBy: Key.self)
            try element.encode(-Double.infinity, forKey: .item)
        }
        #expect(try codingPath(of: inElement) == ["list", "1", "item"])

        let inSupers = Misplaced { encoder in
            var root = encoder.container(keyedBy: Key.self)
            var list = root.superEncoder(forKey: .inherited).unkeyedContainer()
            var fromSuper = list.superEncoder().singleValueContainer()
            try fromSuper.encode(Float.nan)
        }
        #expect(try codingPath(of: inSupers) == ["inherited", "0"])

        let inRootSuper = Misplaced { encoder in
            var root = encoder.container(keyedBy: Key.self)
            var value = root.superEncoder().singleValueContainer()
            try value.encode(Double.nan)
        }
        #expect(try codingPath(of: inRootSuper) == ["super"])
    }

    @Test func keysMadeFromStringsHaveNoIndex() {
        let named = URLEncodedFormKey(stringValue: "name")
        #expect(named.stringValue == "name")
        #expect(named.intValue == nil)
        let indexed = URLEncodedFormKey(intValue: 7)
        #expect(indexed.stringValue == "7")
        #expect(indexed.intValue == 7)
    }
}
