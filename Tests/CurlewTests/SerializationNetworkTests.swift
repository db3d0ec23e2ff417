import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Encoders, serializers and framers over real HTTP against the test server.
@Suite("Serialization over the network")
struct SerializationNetworkTests {
    let session = Fixtures.session

    struct Item: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    struct NewUser: Encodable, Sendable {
        let name: String
        let tags: [String]
    }

    @Test func parametersInQueryFormAndJSON() async throws {
        let server = try await Fixtures.server()
        let query = try await session.request(server.url("/anything"), parameters: ["q": "a&b=c", "page": 2]).serialized(by: .json).value
        #expect(query["args"]["q"].string == "a&b=c")
        #expect(query["args"]["page"].string == "2")
        #expect(query["method"].string == "GET")

        #expect(query["rawTarget"].string == "/anything?page=2&q=a%26b%3Dc", "sorted keys, & and = escaped in values")

        let form = try Fixtures.echo(
            try await session.request(server.url("/anything"), method: .post, parameters: NewUser(name: "Zoë", tags: ["x", "y"])).data())
        #expect(form.headers["content-type"] == "application/x-www-form-urlencoded; charset=utf-8")
        // The array on the wire: both tags, in order, each under `tags[]`.
        #expect(form.body == "name=Zo%C3%AB&tags%5B%5D=x&tags%5B%5D=y")
        #expect(form.formPairs == [["name", "Zoë"], ["tags[]", "x"], ["tags[]", "y"]])

        let json = try await session.request(server.url("/anything"), method: .post, parameters: NewUser(name: "Ann", tags: ["a"]), encoder: .json).serialized(by: .json).value
        #expect(json["json"]["name"].string == "Ann")
        #expect(json["json"]["tags"][0].string == "a")
        #expect(json["headers"]["content-type"].string == "application/json")
    }

    /// What the server received, as it arrived: nested arrays keep their levels (`m[][]`),
    /// repeated values stay repeated, and the pairs keep their order, in a query and in a body.
    @Test func parametersKeepOrderAndArraysOnTheWire() async throws {
        let server = try await Fixtures.server()
        let parameters: Parameters = ["m": [[1, 2], [3]], "a": ["x", "x"]]
        let expectedPairs = [["a[]", "x"], ["a[]", "x"], ["m[][]", "1"], ["m[][]", "2"], ["m[][]", "3"]]
        let encoded = "a%5B%5D=x&a%5B%5D=x&m%5B%5D%5B%5D=1&m%5B%5D%5B%5D=2&m%5B%5D%5B%5D=3"

        let query = try Fixtures.echo(try await session.request(server.url("/anything/wire"), parameters: parameters).data())
        #expect(query.rawTarget == "/anything/wire?" + encoded)
        #expect(query.queryPairs == expectedPairs)
        #expect(query.formPairs == nil)

        let form = try Fixtures.echo(
            try await session.request(server.url("/anything/wire"), method: .post, parameters: parameters).data())
        #expect(form.rawTarget == "/anything/wire")
        #expect(form.body == encoded)
        #expect(form.formPairs == expectedPairs)
    }

    /// Dotted key paths and a custom set of unescaped characters, as the server reads them.
    @Test func dottedKeyPathsAndAllowedCharactersOnTheWire() async throws {
        let server = try await Fixtures.server()
        var allowed = URLEncodedFormEncoder.defaultAllowedCharacters
        allowed.insert(charactersIn: ":")
        let encoder = URLEncodedFormParameterEncoder(
            encoder: URLEncodedFormEncoder(keyPathEncoding: .dots, allowedCharacters: allowed))
        let parameters: Parameters = ["user": ["name": "Ann", "time": "12:30"] as [String: any Sendable]]
        let form = try Fixtures.echo(
            try await session.request(server.url("/anything/dots"), method: .post, parameters: parameters, encoder: encoder).data())
        #expect(form.body == "user.name=Ann&user.time=12:30")
        #expect(form.formPairs == [["user.name", "Ann"], ["user.time", "12:30"]])
        let query = try Fixtures.echo(
            try await session.request(server.url("/anything/dots"), parameters: parameters, encoder: encoder).data())
        #expect(query.rawTarget == "/anything/dots?user.name=Ann&user.time=12:30")
    }

    @Test func severalParameterSetsAtOnce() async throws {
        let server = try await Fixtures.server()
        let sets: RequestParameters = [ParameterSet(["page": 3], encoding: .query), ParameterSet(["name": "Ann"], encoding: .json)]
        let echo = try await session.request(Endpoint(server.url("/anything"), method: .post).with(parameters: sets)).serialized(by: .json).value
        #expect(echo["args"]["page"].string == "3")
        #expect(echo["json"]["name"].string == "Ann")
    }

    @Test func multipartUploadReachesTheServer() async throws {
        let server = try await Fixtures.server()
        var form = MultipartFormData()
        try form.append("Ann \"the\" tester", withName: "name")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-\(UUID().uuidString).txt")
        try Data("file body".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try form.append(fileAt: file, withName: "document")
        var uploaded: TransferProgress?
        let request = session.upload(.multipart(form), to: server.url("/anything"))
        for try await event in request.events {
            if case .uploadProgress(let progress) = event { uploaded = progress }
        }
        let echo = try await request.serialized(by: .json).value
        #expect(echo["form"]["name"].string == "Ann \"the\" tester")
        #expect(echo["files"]["document"]["content"].string == "file body")
        #expect(echo["files"]["document"]["filename"].string == file.lastPathComponent)
        #expect(echo["files"]["document"]["contentType"].string == "text/plain")
        #expect(uploaded?.fractionCompleted == 1)
    }

    @Test func jsonPropertyListAndCollections() async throws {
        let server = try await Fixtures.server()
        let items = #"{"data":{"items":[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":"bad"}]}}"#
        let url = server.contentTypeURL(type: "application/json", body: items)
        do {
            _ = try await session.request(url).serialized(by: .collection(of: Item.self, keyPath: "data.items")).value
            Issue.record("a strict collection must fail on the bad element")
        } catch {
            #expect(error.kind == .serializationFailed)
        }
        let lossy = try await session.request(url).serialized(by: .lossyCollection(of: Item.self, keyPath: "data.items")).value
        #expect(Array(lossy) == [Item(id: 1, name: "a"), Item(id: 2, name: "b")])
        #expect(lossy.failures.map(\.index) == [2])

        let plist = """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>name</key><string>Ann</string>\
            <key>age</key><integer>42</integer></dict></plist>
            """
        let value = try await session.request(server.contentTypeURL(type: "application/x-plist", body: plist)).serialized(by: .propertyList).value
        #expect(value["name"]?.string == "Ann")
        #expect(value["age"]?.int == 42)
    }

    struct APIProblem: Decodable, Error, Sendable {
        let code: String
        let message: String
    }

    @Test func typedAPIErrorsAreDecodedAndThrown() async throws {
        let server = try await Fixtures.server()
        let url = server.contentTypeURL(type: "application/json", body: #"{"code":"quota","message":"slow down"}"#)
        do {
            _ = try await session.request(url, headers: ["X-Test-Status": "429"]).validate(errorType: APIProblem.self).data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unacceptableStatus)
            #expect(error.status?.code == 429)
            #expect(error.apiError(as: APIProblem.self)?.code == "quota")
            #expect(error.responseJSON["message"].string == "slow down")
        }
    }

    @Test func serializerErrorPaths() async throws {
        let server = try await Fixtures.server()
        // Bad JSON.
        await #expect(throws: CurlewError.self) {
            try await session.request(server.contentTypeURL(type: "application/json", body: "{nope")).serialized(by: .json).value
        }
        // Wrong type.
        do {
            _ = try await session.request(server.contentTypeURL(type: "application/json", body: #"{"id":"x","name":1}"#)).decode(Item.self)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .serializationFailed)
            #expect(error.underlying is DecodingError)
        }
        // Empty body where one is needed, and an empty 204 where it is not.
        do {
            _ = try await session.request(server.contentTypeURL(type: "application/json", body: "")).decode(Item.self)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .emptyResponse)
        }
        #expect(try await session.request(server.url("/status/204")).decode(Empty.self) == Empty.value)
        // Wrong charset: Latin-1 bytes read as UTF-8.
        do {
            _ = try await session.request(server.url("/charset/latin1")).string(encoding: .utf8)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .serializationFailed)
        }
    }

    @Test func jsonLinesAndServerSentEvents() async throws {
        let server = try await Fixtures.server()
        var ids: [Int] = []
        for try await item in session.request(server.url("/json-lines?count=500&batch=7&split=1")).decodeStream(Item.self) {
            ids.append(item.id)
        }
        #expect(ids == Array(0..<500))

        var events: [ServerSentEvent] = []
        for try await event in session.request(server.url("/sse?count=4")).serverSentEvents {
            events.append(event)
        }
        #expect(events.count == 4)
        #expect(events.first?.event == "tick")
        #expect(events.last?.id == "3")
        #expect(events.first?.data == "event 0\n{\"id\":0}")

        var lines = 0
        for try await _ in session.request(server.url("/json-lines?count=50")).lines { lines += 1 }
        #expect(lines == 50)
    }

    /// 200 MiB of NDJSON decoded record by record over HTTP: memory stays bounded.
    @Test(.timeLimit(.minutes(5)))
    func twoHundredMiBOfJSONLinesWithBoundedMemory() async throws {
        let server = try await Fixtures.server()
        // Lines are about 30 bytes: 7 M records ≈ 200 MiB.
        let count = 7_000_000
        let before = try Fixtures.residentBytes()
        var peak = before
        var seen = 0
        var outOfOrder = 0
        struct Record: Decodable, Sendable { let id: Int }
        for try await record in session.request(server.url("/json-lines?count=\(count)&batch=2000")).decodeStream(Record.self) {
            if record.id != seen { outOfOrder += 1 }
            seen += 1
            if seen % 500_000 == 0 { peak = try max(peak, Fixtures.residentBytes()) }
        }
        #expect(seen == count)
        #expect(outOfOrder == 0)
        #expect(peak - before < 64 << 20, "grew by \((peak - before) >> 20) MiB")
    }
}
