import Foundation

/// The resident memory of this (the test) process, for the memory-bound tests.
public enum ResidentMemory {
    /// The resident set size in bytes, from `VmRSS` in /proc/self/status. Throws if it cannot be
    /// read or parsed, so that a memory bound can never pass just because nothing was measured.
    public static func bytes() throws -> Int {
        try field("VmRSS")
    }

    /// The size of the address space in bytes (`VmSize`): what reservations cost before they
    /// are touched.
    public static func virtualBytes() throws -> Int {
        try field("VmSize")
    }

    private static func field(_ name: String) throws -> Int {
        let status: String
        do {
            status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        } catch {
            throw TestServerError("cannot read /proc/self/status: \(error)")
        }
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(name):") }) else {
            throw TestServerError("no \(name) line in /proc/self/status")
        }
        // "VmRSS:\t  123456 kB"
        let fields = line.dropFirst(name.count + 1).split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, fields[1] == "kB", let kibibytes = Int(fields[0]), kibibytes > 0 else {
            throw TestServerError("cannot parse \(line)")
        }
        return kibibytes * 1024
    }
}
