import Curlew
import DemoServer
import Foundation

// Two people in the demo server's WebSocket chat room, on one Session: each message a member
// sends reaches every member as "name: text". Shows opening, sending, reading the messages
// stream, a ping answered with a pong, and the closing handshake. Against the embedded demo
// server: no internet needed. `swift run Chat`.

let server = try await DemoServer.start()
let room = server.url("/chat").replacingOccurrences(of: "http://", with: "ws://")

/// Reads the next text message of `socket` and prints it as `who` saw it.
func show(_ who: String, _ messages: inout AsyncThrowingStream<WebSocketMessage, any Error>.Iterator) async throws {
    switch try await messages.next() {
    case .text(let text): print("   \(who) sees  \(text)")
    case .binary(let data): print("   \(who) sees  \(data.count) bytes")
    case nil: print("   \(who)'s connection closed")
    }
}

try await withSession { session in
    print("1. Ada joins the room:")
    let ada = try await session.webSocket(room + "?name=ada")
    print("   101 Switching Protocols, subprotocol: \(ada.subprotocol ?? "none")")
    var adaReads = ada.messages.makeAsyncIterator()
    try await show("ada  ", &adaReads)

    print("2. Grace joins; both hear of it:")
    let grace = try await session.webSocket(room + "?name=grace")
    var graceReads = grace.messages.makeAsyncIterator()
    try await show("ada  ", &adaReads)
    try await show("grace", &graceReads)

    print("3. They talk:")
    try await ada.send(text: "hello, grace")
    try await show("ada  ", &adaReads)
    try await show("grace", &graceReads)
    try await grace.send(text: "hi ada! 👋")
    try await show("ada  ", &adaReads)
    try await show("grace", &graceReads)

    print("4. Ada pings the server:")
    var adaEvents = ada.events.makeAsyncIterator()
    try await ada.ping(Data("are you there?".utf8))
    if case .pongReceived(let payload) = await adaEvents.next() {
        print("   pong: \(String(decoding: payload, as: UTF8.self))")
    }

    print("5. Ada leaves with the closing handshake; Grace hears of it:")
    await ada.close()
    print("   ada's close code from the server: \(ada.closeCode.map { "\($0.rawValue)" } ?? "none")")
    try await show("grace", &graceReads)
    await grace.close(code: .goingAway, reason: "done")
}
try await server.shutdown()
