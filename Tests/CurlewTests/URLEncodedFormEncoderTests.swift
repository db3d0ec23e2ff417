import Foundation
import Testing

@testable import Curlew

@Suite("URLEncodedFormEncoder")
struct URLEncodedFormEncoderTests {
    struct Address: Encodable {
        let street: String
        let zip: String
    }

    struct Person: Encodable {
        let name: String
        let age: Int
        let admin: Bool
        let tags: [String]
        let address: Address
        let nickname: String?
    }

    @Test func untypedNestedValuesUseBracketsAndSortedKeys() throws {
        let parameters: Parameters = [
            "foo": "bar",
            "baz": ["a", 1] as [any Sendable],
            "qux": ["x": 1, "y": 2, "z": 3] as [String: any Sendable],
        ]
        let text = try URLEncodedFormEncoder().encode(parameters)
        #expect(text == "baz%5B%5D=a&baz%5B%5D=1&foo=bar&qux%5Bx%5D=1&qux%5By%5D=2&qux%5Bz%5D=3")
    }

    @Test func arrayEncodings() throws {
        let parameters: Parameters = ["k": [1, 2] as [any Sendable]]
        #expect(try URLEncodedFormEncoder(arrayEncoding: .brackets).encode(parameters) == "k%5B%5D=1&k%5B%5D=2")
        #expect(try URLEncodedFormEncoder(arrayEncoding: .noBrackets).encode(parameters) == "k=1&k=2")
        #expect(try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets).encode(parameters) == "k%5B0%5D=1&k%5B1%5D=2")
    }

    @Test func boolEncodings() throws {
        let parameters: Parameters = ["a": true, "b": false]
        #expect(try URLEncodedFormEncoder().encode(parameters) == "a=1&b=0")
        #expect(try URLEncodedFormEncoder(boolEncoding: .literal).encode(parameters) == "a=true&b=false")
    }

    @Test func keyPathsUseBracketsByDefaultAndDotsOnRequest() throws {
        let parameters: Parameters = ["page": ["size": 20, "sort": ["by": "name"] as [String: any Sendable]] as [String: any Sendable]]
        #expect(try URLEncodedFormEncoder().encode(parameters) == "page%5Bsize%5D=20&page%5Bsort%5D%5Bby%5D=name")
        #expect(try URLEncodedFormEncoder(keyPathEncoding: .brackets).encode(parameters) == "page%5Bsize%5D=20&page%5Bsort%5D%5Bby%5D=name")
        #expect(try URLEncodedFormEncoder(keyPathEncoding: .dots).encode(parameters) == "page.size=20&page.sort.by=name")
        let custom = URLEncodedFormEncoder.KeyPathEncoding { "_" + $0 }
        #expect(try URLEncodedFormEncoder(keyPathEncoding: custom).encode(parameters) == "page_size=20&page_sort_by=name")
        // Arrays keep their own naming; a dotted member's key is escaped like any key.
        let mixed: Parameters = ["a": ["b c": [1, 2] as [any Sendable]] as [String: any Sendable]]
        #expect(try URLEncodedFormEncoder(keyPathEncoding: .dots).encode(mixed) == "a.b%20c%5B%5D=1&a.b%20c%5B%5D=2")
    }

    @Test func dottedKeyPathsForEncodableValues() throws {
        let person = Person(
            name: "Ann", age: 30, admin: true, tags: [], address: Address(street: "Main", zip: "123"), nickname: nil)
        #expect(try URLEncodedFormEncoder(keyPathEncoding: .dots).encode(person)
            == "address.street=Main&address.zip=123&admin=1&age=30&name=Ann")
    }

    @Test func allowedCharactersAreLeftUnescaped() throws {
        var allowed = URLEncodedFormEncoder.defaultAllowedCharacters
        allowed.insert(charactersIn: "[]:@")
        let encoder = URLEncodedFormEncoder(allowedCharacters: allowed)
        let parameters: Parameters = ["k": ["x": "a:b@c[d]"] as [String: any Sendable], "t": ["1"] as [any Sendable]]
        #expect(try encoder.encode(parameters) == "k[x]=a:b@c[d]&t[]=1")
        // Fewer than the default: `/` and `?` escaped too; non-ASCII text is escaped as UTF-8.
        var fewer = URLEncodedFormEncoder.defaultAllowedCharacters
        fewer.remove(charactersIn: "/?")
        #expect(try URLEncodedFormEncoder(allowedCharacters: fewer).encode(["p": "a/b?é"]) == "p=a%2Fb%3F%C3%A9")
        // A non-ASCII character may be allowed as it is.
        var accented = URLEncodedFormEncoder.defaultAllowedCharacters
        accented.insert(charactersIn: "é")
        #expect(try URLEncodedFormEncoder(allowedCharacters: accented).encode(["p": "é è"]) == "p=é%20%C3%A8")
        #expect(try URLEncodedFormEncoder(spaceEncoding: .plusReplaced, allowedCharacters: accented).encode(["p": "é è"]) == "p=é+%C3%A8")
    }

    @Test(arguments: ["&", "=", "%", "#", "+", " ", "\n"])
    func allowedCharactersThatWouldChangeThePairsAreRefused(character: String) throws {
        var allowed = URLEncodedFormEncoder.defaultAllowedCharacters
        allowed.insert(charactersIn: character)
        let encoder = URLEncodedFormEncoder(allowedCharacters: allowed)
        do {
            _ = try encoder.encode(["q": "a"])
            Issue.record("expected an error for \(character.debugDescription)")
        } catch let error as CurlewError {
            #expect(error.kind == .invalidRequest)
            #expect(error.message.contains(character.debugDescription))
        }
        #expect(throws: CurlewError.self) { try encoder.encode(Address(street: "a", zip: "b")) }
    }

    @Test func reservedCharactersInValuesAreEscaped() throws {
        let text = try URLEncodedFormEncoder().encode(["q": "a&b=c+d#e[f]g;h,i!j$k'l(m)n*o:p@q"])
        #expect(text == "q=a%26b%3Dc%2Bd%23e%5Bf%5Dg%3Bh%2Ci%21j%24k%27l%28m%29n%2Ao%3Ap%40q")
    }

    @Test func unreservedCharactersAndSlashAndQuestionMarkStay() throws {
        let text = try URLEncodedFormEncoder().encode(["path": "a-b.c_d~e/f?g"])
        #expect(text == "path=a-b.c_d~e/f?g")
    }

    @Test func reservedCharactersInKeysAreEscaped() throws {
        let text = try URLEncodedFormEncoder().encode(["a&b": ["c=d": "e"] as [String: any Sendable]])
        #expect(text == "a%26b%5Bc%3Dd%5D=e")
    }

    @Test func spacesAndPercentSigns() throws {
        #expect(try URLEncodedFormEncoder().encode(["q": "100% sure"]) == "q=100%25%20sure")
        #expect(try URLEncodedFormEncoder(spaceEncoding: .plusReplaced).encode(["q": "a b+c"]) == "q=a+b%2Bc")
    }

    @Test func nonASCIITextIsEscapedAsUTF8() throws {
        let text = try URLEncodedFormEncoder().encode(["café": "naïve ☕ 日本 👩‍👩‍👧"])
        #expect(
            text == "caf%C3%A9=na%C3%AFve%20%E2%98%95%20%E6%97%A5%E6%9C%AC%20"
                + "%F0%9F%91%A9%E2%80%8D%F0%9F%91%A9%E2%80%8D%F0%9F%91%A7")
    }

    @Test func controlCharactersAreEscaped() throws {
        #expect(try URLEncodedFormEncoder().encode(["a": "x\r\ny\u{0}"]) == "a=x%0D%0Ay%00")
    }

    @Test func encodableStructWithNestedValues() throws {
        let person = Person(
            name: "Ann Lee", age: 42, admin: true, tags: ["x", "y z"],
            address: Address(street: "1 Main St", zip: "02139"), nickname: nil)
        let text = try URLEncodedFormEncoder().encode(person)
        #expect(
            text == "address%5Bstreet%5D=1%20Main%20St&address%5Bzip%5D=02139&admin=1&age=42&name=Ann%20Lee"
                + "&tags%5B%5D=x&tags%5B%5D=y%20z")
    }

    @Test func encodableDictionaryAndNestedArrays() throws {
        let value: [String: [[Int]]] = ["m": [[1, 2], [3]]]
        #expect(
            try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets).encode(value)
                == "m%5B0%5D%5B0%5D=1&m%5B0%5D%5B1%5D=2&m%5B1%5D%5B0%5D=3")
    }

    @Test func nestedArraysKeepOneBracketPairPerLevel() throws {
        // [[1, 2], [3]] under the default (brackets): m[][]=…, never flattened to m[]=….
        let typed: [String: [[Int]]] = ["m": [[1, 2], [3]]]
        #expect(try URLEncodedFormEncoder().encode(typed) == "m%5B%5D%5B%5D=1&m%5B%5D%5B%5D=2&m%5B%5D%5B%5D=3")
        let untyped: Parameters = ["m": [[1, 2] as [any Sendable], [3] as [any Sendable]] as [any Sendable]]
        #expect(try URLEncodedFormEncoder().encode(untyped) == "m%5B%5D%5B%5D=1&m%5B%5D%5B%5D=2&m%5B%5D%5B%5D=3")
        let deeper: [String: [[[String]]]] = ["d": [[["x"]]]]
        #expect(try URLEncodedFormEncoder().encode(deeper) == "d%5B%5D%5B%5D%5B%5D=x")
        // Arrays inside objects inside arrays keep every level too.
        let mixed: Parameters = ["o": [["k": [1] as [any Sendable]] as [String: any Sendable]] as [any Sendable]]
        #expect(try URLEncodedFormEncoder().encode(mixed) == "o%5B%5D%5Bk%5D%5B%5D=1")
    }

    @Test func nilStrategies() throws {
        struct Values: Encodable { let k: [Int?] }
        let value = Values(k: [1, nil, 3])
        #expect(try URLEncodedFormEncoder().encode(value) == "k%5B%5D=1&k%5B%5D=3")
        #expect(try URLEncodedFormEncoder(nilEncoding: .dropValue).encode(value) == "k%5B%5D=1&k%5B%5D=&k%5B%5D=3")
        #expect(try URLEncodedFormEncoder(nilEncoding: .null).encode(value) == "k%5B%5D=1&k%5B%5D=null&k%5B%5D=3")
        let untyped: Parameters = ["a": NSNull(), "b": Optional<Int>.none as any Sendable, "c": 1]
        #expect(try URLEncodedFormEncoder().encode(untyped) == "c=1")
        #expect(try URLEncodedFormEncoder(nilEncoding: .dropValue).encode(untyped) == "a=&b=&c=1")
    }

    @Test func synthesizedOptionalsAreLeftOut() throws {
        struct Filter: Encodable { let q: String?; let page: Int? }
        #expect(try URLEncodedFormEncoder(nilEncoding: .null).encode(Filter(q: nil, page: 2)) == "page=2")
    }

    @Test func keyStrategies() throws {
        struct Keys: Encodable { let userID: Int; let firstName: String; let myURLValue: Int; let already_snake: Int }
        let value = Keys(userID: 1, firstName: "A", myURLValue: 2, already_snake: 3)
        #expect(
            try URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase).encode(value)
                == "already_snake=3&first_name=A&my_url_value=2&user_id=1")
        #expect(
            try URLEncodedFormEncoder(keyEncoding: .convertToKebabCase).encode(value)
                == "already_snake=3&first-name=A&my-url-value=2&user-id=1")
        #expect(
            try URLEncodedFormEncoder(keyEncoding: .custom { $0.uppercased() }).encode(["ab": ["cd": 1] as [String: any Sendable]])
                == "AB%5BCD%5D=1")
    }

    @Test func dateStrategies() throws {
        struct Event: Encodable { let at: Date }
        let event = Event(at: Date(timeIntervalSince1970: 1_700_000_000.5))
        #expect(try URLEncodedFormEncoder().encode(event) == "at=2023-11-14T22%3A13%3A20Z")
        #expect(try URLEncodedFormEncoder(dateEncoding: .secondsSince1970).encode(event) == "at=1700000000.5")
        #expect(try URLEncodedFormEncoder(dateEncoding: .millisecondsSince1970).encode(event) == "at=1700000000500")
        #expect(
            try URLEncodedFormEncoder(dateEncoding: .deferredToDate).encode(event)
                == "at=\(String(event.at.timeIntervalSinceReferenceDate))")
        #expect(try URLEncodedFormEncoder(dateEncoding: .custom { _ in "tomorrow" }).encode(event) == "at=tomorrow")
        #expect(try URLEncodedFormEncoder(dateEncoding: .secondsSince1970).encode(["d": Date(timeIntervalSince1970: 5)]) == "d=5.0")
    }

    @Test func dataURLDecimalAndEnums() throws {
        enum Level: String, Encodable { case high }
        struct Misc: Encodable { let blob: Data; let link: URL; let amount: Decimal; let level: Level; let ratio: Double }
        let value = Misc(
            blob: Data([0xFB, 0xFF]), link: URL(string: "https://x.org/a?b=c")!, amount: Decimal(string: "12.50")!,
            level: .high, ratio: 0.25)
        let text = try URLEncodedFormEncoder().encode(value)
        #expect(text == "amount=12.5&blob=%2B/8%3D&level=high&link=https%3A//x.org/a?b%3Dc&ratio=0.25")
        #expect(try URLEncodedFormEncoder(dataEncoding: .deferredToData).encode(["b": Data([1, 2])]) == "b%5B%5D=1&b%5B%5D=2")
    }

    @Test func numbersFromJSONSerializationKeepTheirKind() throws {
        let object = try JSONSerialization.jsonObject(with: Data(#"{"t":true,"n":1,"d":2.5}"#.utf8))
        let parameters = try #require(object as? [String: Any])
        var sendable: Parameters = [:]
        for (key, value) in parameters { sendable[key] = value as? NSNumber }
        #expect(try URLEncodedFormEncoder(boolEncoding: .literal).encode(sendable) == "d=2.5&n=1&t=true")
    }

    @Test func untypedEncodableValuesAreAccepted() throws {
        #expect(try URLEncodedFormEncoder().encode(["a": Address(street: "S", zip: "1")]) == "a%5Bstreet%5D=S&a%5Bzip%5D=1")
    }

    @Test func topLevelScalarOrArrayIsRejected() {
        #expect(throws: CurlewError.self) { try URLEncodedFormEncoder().encode([1, 2, 3]) }
        let error = try? #require(throws: CurlewError.self) { try URLEncodedFormEncoder().encode("text") }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("top level") == true)
    }

    @Test func nonFiniteNumbersAreRejected() {
        let typed = try? #require(throws: CurlewError.self) { try URLEncodedFormEncoder().encode(["x": Double.nan]) }
        #expect(typed?.kind == .invalidRequest)
        struct Bad: Encodable { let x: Double }
        let encodable = try? #require(throws: CurlewError.self) { try URLEncodedFormEncoder().encode(Bad(x: .infinity)) }
        #expect(encodable?.kind == .invalidRequest)
        #expect(encodable?.underlying is EncodingError)
    }

    @Test func unsupportedUntypedValueNamesItsKeyPath() {
        final class Opaque: Sendable {}
        let error = try? #require(throws: CurlewError.self) {
            try URLEncodedFormEncoder().encode(["outer": ["inner": [1, Opaque()] as [any Sendable]] as [String: any Sendable]])
        }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("outer[inner][1]") == true)
    }

    @Test func emptyContainersProduceNothing() throws {
        #expect(try URLEncodedFormEncoder().encode([:] as Parameters) == "")
        #expect(try URLEncodedFormEncoder().encode(["a": [] as [any Sendable], "b": 1]) == "b=1")
    }
}
