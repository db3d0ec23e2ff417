// Downloads, resume data, and resuming on retry.
// snippet.hide
import Curlew
import Foundation

let url = URL(string: "https://example.com/big.iso")!
let target = URL(fileURLWithPath: "/tmp/big.iso")
let saved = URL(fileURLWithPath: "/tmp/big.iso.resume")
let session = Session()

// snippet.show
// snippet.download
let file = try await session.download(url, to: .file(target, options: [.createIntermediateDirectories, .removePreviousFile]))
    .validate().fileURL()
let scratch = try await session.download(url).fileURL()     // a temporary file that is yours
// snippet.end

// snippet.cancel
let download = session.download(url, to: .file(target))
if let resumeData = await download.cancel(producingResumeData: true) {
    try JSONEncoder().encode(resumeData).write(to: saved)     // survives a restart
}
// snippet.end

// snippet.resume
let resumeData = try JSONDecoder().decode(DownloadResumeData.self, from: Data(contentsOf: saved))
let resumed = try await session.download(resumingWith: resumeData, to: .file(target)).validate().fileURL()
// snippet.end

// snippet.retry
var policy = RetryPolicy.default
policy.resumesDownloads = true
let resuming = Session(interceptors: [policy])
// snippet.end

// snippet.hide
print(file, scratch, resumed)
await resuming.shutdown()
await session.shutdown()
