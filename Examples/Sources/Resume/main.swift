import Curlew
import DemoServer
import Foundation

// Downloads a file with a live progress line, interrupts it part way, keeps the resume data
// as JSON (as a program would across a restart), and resumes from where it stopped. Against
// the embedded demo server: no internet needed. `swift run Resume`.

let server = try await DemoServer.start()
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-resume-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let target = directory.appendingPathComponent("big.bin")
let size = 16 << 20
guard let url = URL(string: server.url("/resumable/big.bin?size=\(size)&rate=\(8 << 20)")) else {
    print("the demo server's URL does not parse")
    exit(1)
}

func progressLine(_ progress: TransferProgress) -> String {
    let percent = Int(progress.fractionCompleted * 100)
    let bar = String(repeating: "█", count: percent / 4).padding(toLength: 25, withPad: "·", startingAt: 0)
    return "\r   \(bar) \(percent)%  \(progress.completedBytes >> 10)/\((progress.totalBytes ?? 0) >> 10) KiB   "
}

try await withSession { session in
    print("1. Download, interrupted at about 40 %:")
    let download = session.download(url, to: .file(target))
    var resumeData: DownloadResumeData?
    for try await event in download.events {
        guard case .downloadProgress(let progress) = event else { continue }
        print(progressLine(progress), terminator: "")
        fflush(nil)
        if progress.fractionCompleted >= 0.4 {
            resumeData = await download.cancel(producingResumeData: true)
            break
        }
    }
    guard let resumeData else {
        print("\n   no resume data (the download finished before it could be interrupted)")
        return
    }
    print("\n   stopped with \(resumeData.bytesOnDisk >> 10) KiB on disk, validator \(resumeData.validator)\n")

    // What a program would write to disk and read back after a restart.
    let saved = try JSONEncoder().encode(resumeData)
    let restored = try JSONDecoder().decode(DownloadResumeData.self, from: saved)
    print("2. Resume data as JSON: \(saved.count) bytes; resuming with Range: bytes=\(restored.bytesOnDisk)-")

    let resumed = session.download(resumingWith: restored, to: .file(target))
    for try await event in resumed.events {
        switch event {
        case .downloadProgress(let progress):
            print(progressLine(progress), terminator: "")
            fflush(nil)
        case .completed(let done):
            let bytes = try Data(contentsOf: done.fileURL ?? target)
            let intact = bytes.count == size && bytes.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) }
            print("\n   complete: \(bytes.count >> 10) KiB, every byte as the server sent it: \(intact)")
        default:
            break
        }
    }
}
try await server.shutdown()
