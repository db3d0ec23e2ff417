import Foundation
import Testing
import TestServer

/// `curlew ws`: lines of standard input go out as messages, incoming messages are printed.
@Suite(.temporaryFolders) struct CLIWebSocketTests {
    /// The server closes once it echoed both lines: the long linger after the end of input
    /// keeps the connection open until then, and the server's close ends the run (no clock).
    @Test func linesGoOutAndEchoesComeBack() async throws {
        let server = try await PythonWebSocketServer.start()
        let run = try await CLI.run(["ws", "--linger", "600", server.url("/echo-then-close/2")],
                                    input: Data("hello\nsecond line\n".utf8))
        await server.stop()
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output == "hello\nsecond line\n", "\(run.output)")
    }

    /// Without lingering, the end of input closes the connection at once, normally.
    @Test func theEndOfInputClosesTheConnection() async throws {
        let server = try await PythonWebSocketServer.start()
        let run = try await CLI.run(["ws", "--linger", "0", server.url("/echo")], input: Data())
        await server.stop()
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output.isEmpty && run.errorOutput.isEmpty, "\(run.output)\(run.errorOutput)")
    }

    @Test func aRefusedHandshakeIsOneLineAndNonZero() async throws {
        try await withServer { server in
            // The test server answers an upgrade request like any other GET: not a 101.
            let run = try await CLI.run(["ws", server.url("/get").absoluteString.replacingOccurrences(of: "http://", with: "ws://")])
            #expect(run.status != 0)
            #expect(run.errorLines.count == 1, "\(run.errorOutput)")
            #expect(run.errorLines.first?.hasPrefix("curlew: ") == true)
        }
    }

    @Test func helpDescribesTheWebSocketCommand() async throws {
        let run = try await CLI.run(["ws", "--help"])
        #expect(run.status == 0)
        #expect(run.output.contains("USAGE: curlew ws") && run.output.contains("--linger <SECONDS>"), "\(run.output)")
    }

    @Test func badItemsAndAMissingURLAreBadInput() async throws {
        let missing = try await CLI.run(["ws"])
        #expect(missing.status == 64 && missing.errorLines == ["curlew: error: curlew ws needs a URL"], "\(missing.errorOutput)")
        let item = try await CLI.run(["ws", "ws://127.0.0.1:9/", "name==value"])
        #expect(item.status == 64 && item.errorLines.count == 1, "\(item.errorOutput)")
        let linger = try await CLI.run(["ws", "--linger=-1", "ws://127.0.0.1:9/"])
        #expect(linger.status == 64 && linger.errorLines == ["curlew: error: --linger takes seconds from 0 to 86400, not -1.0"],
                "\(linger.errorOutput)")
    }
}
