import Foundation
import Testing
import TestServer

/// `curlew [METHOD] URL [ITEM ...]`: methods, items and bodies, checked by the echo routes.
@Suite(.temporaryFolders) struct CLIRequestTests {
    @Test func getWithQueryAndHeaderItems() async throws {
        try await withServer { server in
            let run = try await CLI.run([server.url("/get").absoluteString, "q==a b&c", "X-Api:one", "Empty;"])
            #expect(run.status == 0, "\(run.errorOutput)")
            let echo = try run.json()
            #expect(echo["method"] as? String == "GET")
            #expect((echo["args"] as? [String: Any])?["q"] as? String == "a b&c")
            let headers = try #require(echo["headers"] as? [String: String])
            #expect(headers["x-api"] == "one")
            #expect(headers["empty"] == "")
            #expect(headers["user-agent"]?.hasPrefix("curlew/") == true)
        }
    }

    @Test func dataFieldsMakeAJSONObjectAndAPost() async throws {
        try await withServer { server in
            let run = try await CLI.run([
                server.url("/post").absoluteString, "name=Ann", "age:=30", "tags:=[\"a\",1]", "a\\=b=escaped",
            ])
            #expect(run.status == 0, "\(run.errorOutput)")
            let echo = try run.json()
            #expect(echo["method"] as? String == "POST")
            #expect(echo["body"] as? String == #"{"name": "Ann", "age": 30, "tags": ["a",1], "a=b": "escaped"}"#)
            let headers = try #require(echo["headers"] as? [String: String])
            #expect(headers["content-type"] == "application/json")
            #expect(headers["accept"] == "application/json, */*;q=0.5")
        }
    }

    @Test func jsonFlagAsksForJSONAndTypesPipedBodies() async throws {
        try await withServer { server in
            let get = try await CLI.run(["--json", server.url("/get").absoluteString])
            #expect((try get.json()["headers"] as? [String: String])?["accept"] == "application/json, */*;q=0.5")
            let piped = try await CLI.run(["-j", server.url("/post").absoluteString], input: Data(#"{"a":1}"#.utf8))
            let headers = try #require(try piped.json()["headers"] as? [String: String])
            #expect(headers["content-type"] == "application/json")
            #expect(try piped.json()["body"] as? String == #"{"a":1}"#)
        }
    }

    @Test func explicitMethodInAnyCase() async throws {
        try await withServer { server in
            let upper = try await CLI.run(["PUT", server.url("/put").absoluteString, "a=1"])
            #expect(try upper.json()["method"] as? String == "PUT")
            let lower = try await CLI.run(["delete", server.url("/delete").absoluteString])
            #expect(try lower.json()["method"] as? String == "DELETE")
        }
    }

    @Test func formFieldsAreURLEncoded() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--form", server.url("/post").absoluteString, "a=1 2", "b=x&y"])
            #expect(run.status == 0, "\(run.errorOutput)")
            let echo = try run.json()
            #expect(echo["body"] as? String == "a=1%202&b=x%26y")
            #expect((echo["headers"] as? [String: String])?["content-type"] == "application/x-www-form-urlencoded")
        }
    }

    @Test func fileFieldMakesAMultipartForm() async throws {
        try await withServer { server in
            let folder = try TemporaryFolder.make()
            let file = folder.appendingPathComponent("notes.txt")
            try Data("file body".utf8).write(to: file)
            let run = try await CLI.run([server.url("/post").absoluteString, "title=Hi", "doc@\(file.path)"])
            #expect(run.status == 0, "\(run.errorOutput)")
            let echo = try run.json()
            let contentType = (echo["headers"] as? [String: String])?["content-type"] ?? ""
            #expect(contentType.hasPrefix("multipart/form-data; boundary="))
            let body = echo["body"] as? String ?? ""
            #expect(body.contains("name=\"doc\"; filename=\"notes.txt\""))
            #expect(body.contains("file body"))
            #expect(body.contains("name=\"title\""))
        }
    }

    @Test func multipartFlagSendsTextFieldsAsParts() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--multipart", server.url("/post").absoluteString, "a=1"])
            let contentType = (try run.json()["headers"] as? [String: String])?["content-type"] ?? ""
            #expect(contentType.hasPrefix("multipart/form-data"))
        }
    }

    @Test func atFileIsTheBody() async throws {
        try await withServer { server in
            let file = try TemporaryFolder.make().appendingPathComponent("data.json")
            try Data(#"{"from":"file"}"#.utf8).write(to: file)
            let run = try await CLI.run([server.url("/post").absoluteString, "@\(file.path)"])
            #expect(run.status == 0, "\(run.errorOutput)")
            let echo = try run.json()
            #expect(echo["body"] as? String == #"{"from":"file"}"#)
            #expect((echo["headers"] as? [String: String])?["content-type"] == "application/json")
        }
    }

    @Test func fieldFromFileEmbedsItsText() async throws {
        try await withServer { server in
            let file = try TemporaryFolder.make().appendingPathComponent("t.txt")
            try Data("text".utf8).write(to: file)
            let run = try await CLI.run([server.url("/post").absoluteString, "t=@\(file.path)"])
            #expect(try run.json()["body"] as? String == #"{"t": "text"}"#)
        }
    }

    @Test func standardInputIsTheBodyUnlessIgnored() async throws {
        try await withServer { server in
            let run = try await CLI.run([server.url("/post").absoluteString], input: Data("piped".utf8))
            #expect(run.status == 0, "\(run.errorOutput)")
            let echo = try run.json()
            #expect(echo["method"] as? String == "POST")
            #expect(echo["body"] as? String == "piped")
            let ignored = try await CLI.run(["-I", server.url("/get").absoluteString], input: Data("piped".utf8))
            #expect(try ignored.json()["method"] as? String == "GET")
        }
    }

    @Test func urlShorthands() async throws {
        try await withServer { server in
            let short = try await CLI.run([":\(server.port)/get", "a==1"])
            #expect(short.status == 0, "\(short.errorOutput)")
            #expect(try short.json()["url"] as? String == "http://localhost:\(server.port)/get?a=1")
            let noScheme = try await CLI.run(["127.0.0.1:\(server.port)/get"])
            #expect(noScheme.status == 0, "\(noScheme.errorOutput)")
        }
    }
}
