import Curlew
import Foundation
import HTTPTypes
import Synchronization
import Tracing
import CoreMetrics

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The placeholders a reader of the README adds to make its blocks compile: values and types
// the snippets name without declaring. Only placeholders: the README's code is compiled as
// shown (see ReadmeSnippets.generated.swift). Computed, so no global state is shared.

var session: Session { Session() }
var request: DataRequest { session.request(url) }
var url: URL { URL(fileURLWithPath: "/placeholder") }
var userURL: URL { url }
var feedURL: URL { url }
var rssURL: URL { url }
var logURL: URL { url }
var sseURL: URL { url }
var bigXML: URL { url }
var isoURL: URL { url }
var avatarURL: URL { url }
var storeURL: URL { url }
var ingestURL: URL { url }
var legacyURL: URL { url }
var reportURL: URL { url }
var videoURL: URL { url }
var photo: URL { url }
var backup: URL { url }
var target: URL { url }
var dir: URL { url }
var saved: URL { url }
var cookiesFile: URL { url }
var cachesURL: URL { url }
var myTracer: NoOpTracer { NoOpTracer() }
var myMetricsFactory: any MetricsFactory { NOOPMetricsHandler.instance }
var auth: AccessToken { AccessToken(token: "") }
var png: Data { Data() }
var chunks: AsyncStream<[UInt8]> { AsyncStream { $0.finish() } }
var size: Int64 { 0 }
var inputStream: InputStream { InputStream(data: Data()) }
var secret: String { "" }
var token: String { "" }
var sessionID: String { "" }
var ids: [Int] { [] }
var query: [String: String] { [:] }
var settings: [String: String] { [:] }
var tokens: TokenStore { TokenStore() }
var store: TokenStore { TokenStore() }
var sink: Sink { Sink() }
var database: Database { Database() }
var key: APIKey { APIKey(value: "") }
var rotateKeyRequest: OutgoingRequest { OutgoingRequest(url: url) }

struct User: Codable, Sendable {}
struct NewUser: Codable, Sendable { var name: String }
struct NewNote: Codable, Sendable {}
struct Note: Codable, Sendable {}
struct Repository: Codable, Sendable {}
struct Receipt: Codable, Sendable {}
struct Report: Codable, Sendable {}
struct Catalog: Codable, Sendable {}
struct LogEntry: Codable, Sendable {}
struct Container: Codable, Sendable {}
struct Feed: Sendable { var title: String; var items: [String] }
struct APIKey: AuthenticationCredential, Codable { var value: String; var expiresAt: Date? { nil } }

/// A request adapter the app would write.
struct AccessToken: RequestInterceptor {
    init(store: TokenStore) {}
    init(token: String) {}
}

/// Where the app keeps its credentials.
struct TokenStore: Sendable {
    func load() async throws -> OAuth2Credential { OAuth2Credential(accessToken: "", refreshToken: nil, expiresAt: nil) }
    func save(_ credential: OAuth2Credential) async throws {}
}

struct Sink: Sendable { func write(_ chunk: some Sendable) async throws {} }
struct Database: Sendable { func save(_ cookies: [Cookie]) async {} }

func store(_ user: User) async throws {}
func show(_ error: some Error) {}
