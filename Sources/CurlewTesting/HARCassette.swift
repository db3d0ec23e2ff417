import Curlew
import Foundation

/// Record once against a real service, replay in every later run: a session that, when its
/// HAR file does not exist yet, goes to the network and records every exchange (bodies
/// included), and when it exists, answers from it through ``HTTPStubs`` without a socket.
///
/// ```swift
/// let cassette = try HARCassette(file: fixtures.appending(path: "catalog.har"))
/// let client = CatalogClient(session: cassette.session)
/// let items = try await client.items()       // recorded on the first run, replayed afterwards
/// try await cassette.finish()                // writes the file after a recording run
/// ```
///
/// The recording is redacted as Curlew prints requests (credentials, cookies, secret query
/// values and fields become `***`), and replay matches a redacted query value to any value;
/// a replayed `Set-Cookie` carries the redacted value. Commit the file only after reading it:
/// bodies are recorded as the service sent them.
public final class HARCassette: Sendable {
    /// The HAR file.
    public let file: URL
    /// The session to hand to the code under test.
    public let session: Session
    /// The stubs answering a replay (to assert on what was sent); nil while recording.
    public let stubs: HTTPStubs?
    private let recorder: HARRecorder?

    /// Whether this run records (the file did not exist) rather than replays.
    public var isRecording: Bool { recorder != nil }

    /// A cassette on `file`, whose session is made from `configuration`; a file that exists
    /// but is not HAR fails with `CurlewError.Kind.serializationFailed`.
    ///
    /// - Parameters:
    ///   - file: The HAR file: read when it exists, written by ``finish()`` otherwise.
    ///   - configuration: The session's configuration, for both runs (its event monitors see
    ///     replayed requests too).
    ///   - maximumBodySize: The longest body a recording keeps; longer ones are cut.
    public init(file: URL, configuration: SessionConfiguration = .default, maximumBodySize: Int = 8 << 20) throws(CurlewError) {
        self.file = file
        if FileManager.default.fileExists(atPath: file.path) {
            let stubs = try HTTPStubs(replaying: file)
            self.stubs = stubs
            recorder = nil
            session = Session(configuration: .stubbed(by: stubs, from: configuration))
        } else {
            let recorder = HARRecorder(options: HARRecorder.Options(
                recordsRequestBodies: true, recordsResponseBodies: true, maximumBodySize: maximumBodySize))
            var recording = configuration
            recording.eventMonitors.append(recorder)
            self.recorder = recorder
            stubs = nil
            session = Session(configuration: recording)
        }
    }

    /// Shuts the session down and, after a recording run, writes the file (mode 0600, replacing
    /// nothing: it did not exist). Fails with `CurlewError.Kind.fileSystem`.
    public func finish() async throws(CurlewError) {
        await session.shutdown()
        if let recorder { try recorder.write(to: file) }
    }
}
