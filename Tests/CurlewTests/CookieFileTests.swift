import Curlew
import Foundation
import Testing
import TestServer

#if canImport(Glibc)
import Glibc
#endif

/// The cookie file: a later process reads what this one wrote, other local users may share
/// the folder, and the file may have been edited, replaced by a link, a FIFO or a device.
@Suite("Cookie files: permissions, links, tampering, concurrent writers")
struct CookieFileTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-cookiefile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        return url
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode : nil
    }

    /// A jar near its limits: 3000 cookies of 4 KiB, so that writing its file takes long
    /// enough to be watched.
    static func fullJar() throws -> CookieJar {
        let jar = CookieJar()
        let value = String(repeating: "s", count: 4000)
        for site in 0..<60 {
            for index in 0..<50 {
                try jar.set(Cookie(
                    name: "c\(index)", value: value, domain: "site\(site).example", expiresAt: Date(timeIntervalSinceNow: 3600)))
            }
        }
        return jar
    }

    /// Every file that appears in the folder while the jar saves is looked at the moment
    /// inotify reports it: none may be readable or writable by others at any time, not just
    /// once it is in place (a reader who opens it then keeps it open after a `chmod`).
    @Test func theFileIsNeverOpenToOthersWhileItIsWritten() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let jar = try Self.fullJar()
        let watcher = try FolderWatcher(directory.path)
        let previous = umask(0o022)
        defer { umask(previous) }
        for _ in 0..<3 { try jar.save(to: directory.appendingPathComponent("cookies.json")) }
        let seen = watcher.stop()
        #expect(seen.count >= 3, "the watcher saw the files appear")
        #expect(seen.allSatisfy { $0 & 0o077 == 0 }, "modes seen: \(seen.map { String($0 & 0o777, radix: 8) })")
        #expect(Self.mode(directory.appendingPathComponent("cookies.json").path).map { $0 & 0o777 } == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cookies.json"], "no temporary file left")
    }

    @Test func aLinkAtThePathIsReplacedNotFollowed() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let victim = directory.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        let path = directory.appendingPathComponent("cookies.json")
        #expect(symlink(victim.path, path.path) == 0)
        let jar = CookieJar()
        try jar.set(Cookie(name: "a", value: "1", domain: "example.com", expiresAt: Date(timeIntervalSinceNow: 60)))
        try jar.save(to: path)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious")
        #expect(Self.mode(path.path).map { $0 & S_IFMT } == S_IFREG)
        #expect(try CookieJar(contentsOf: path).allCookies.map(\.name) == ["a"])
    }

    @Test func aFIFOOrADeviceAtThePathIsRefusedWithoutBlocking() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("fifo.json")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let zero = directory.appendingPathComponent("zero.json")
        #expect(symlink("/dev/zero", zero.path) == 0)
        for path in [fifo, zero] {
            let task = Task { () throws -> Int in try CookieJar(contentsOf: path).allCookies.count }
            guard let outcome = await HangGuard.result(of: task, within: .seconds(60)) else {
                Issue.record("hung: loading \(path.lastPathComponent) blocked")
                continue
            }
            let error = outcome.failure as? CurlewError
            #expect(error?.kind == .fileSystem, "\(String(describing: outcome))")
            #expect(error?.message.contains("not a regular file") == true, "\(String(describing: error))")
        }
    }

    /// A file in a shared folder that another user put there (as root, the test hands it to
    /// `nobody`) is not trusted with this user's cookies.
    @Test(.enabled(if: geteuid() == 0, "only root can give a file away"))
    func aFileOfAnotherUserIsRefused() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cookies.json")
        let jar = CookieJar()
        try jar.set(Cookie(name: "planted", value: "1", domain: "bank.example", expiresAt: Date(timeIntervalSinceNow: 60)))
        try jar.save(to: path)
        #expect(chown(path.path, 65534, 65534) == 0)
        let error = #expect(throws: CurlewError.self) { try CookieJar(contentsOf: path) }
        #expect(error?.message.contains("owned by another user") == true, "\(String(describing: error))")
    }

    /// An edited file cannot hold a cookie no server could have set: one for every site under a
    /// public suffix, for the subdomains of an address, a prefixed cookie breaking its rules,
    /// or sizes past the limits. Nothing of such a file is added.
    @Test(arguments: [
        #"{"name":"wide","value":"1","domain":"com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":false,"createdAt":0,"lastAccessAt":0}"#,
        #"{"name":"ip","value":"1","domain":"10.0.0.1","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":false,"createdAt":0,"lastAccessAt":0}"#,
        #"{"name":"__Host-x","value":"1","domain":"e.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"createdAt":0,"lastAccessAt":0}"#,
        #"{"name":"__SECURE-x","value":"1","domain":"e.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"createdAt":0,"lastAccessAt":0}"#,
        #"{"name":"long","value":"1","domain":"e.com","path":"/\#(String(repeating: "p", count: 1100))","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"createdAt":0,"lastAccessAt":0}"#,
        #"{"name":"big","value":"\#(String(repeating: "v", count: 4100))","domain":"e.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"createdAt":0,"lastAccessAt":0}"#,
        #"{"name":"nodomain","value":"1","domain":"","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":false,"createdAt":0,"lastAccessAt":0}"#,
    ])
    func anEditedFileWithACookieNoServerCouldSetIsRefused(_ cookie: String) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cookies.json")
        let fine = #"{"name":"fine","value":"1","domain":"e.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"createdAt":0,"lastAccessAt":0}"#
        try Data(#"{"format":"curlew-cookies","version":1,"cookies":[\#(fine),\#(cookie)]}"#.utf8).write(to: path)
        let jar = CookieJar()
        let error = #expect(throws: CurlewError.self) { try jar.load(from: path) }
        #expect(error?.message.contains("no server could set") == true, "\(String(describing: error))")
        #expect(jar.allCookies.isEmpty, "nothing of the file was added")
    }

    /// Two processes (here, tasks) saving to one file while a third loads it: every load
    /// sees one whole file — one writer's cookies — never a torn or mixed one.
    @Test func concurrentSavesAndLoadsNeverSeeATornFile() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cookies.json")
        func jar(_ prefix: String) throws -> CookieJar {
            let jar = CookieJar()
            for index in 0..<200 {
                try jar.set(Cookie(
                    name: "\(prefix)\(index)", value: String(repeating: prefix, count: 300), domain: "\(prefix).example",
                    expiresAt: Date(timeIntervalSinceNow: 3600)))
            }
            return jar
        }
        let writers = [try jar("a"), try jar("b")]
        try writers[0].save(to: path)
        let loads = try await withThrowingTaskGroup(of: [Set<String>].self) { group in
            for writer in writers {
                group.addTask {
                    for _ in 0..<40 { try writer.save(to: path) }
                    return []
                }
            }
            group.addTask {
                var seen: [Set<String>] = []
                for _ in 0..<80 { seen.append(Set(try CookieJar(contentsOf: path).allCookies.map(\.domain))) }
                return seen
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(loads.count == 80)
        #expect(loads.allSatisfy { $0 == ["a.example"] || $0 == ["b.example"] })
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cookies.json"])
    }
}
