import CCurlShims
import Foundation

extension StubTransferDriver {
    /// The header lines libcurl would send for the configured hop of `exchange`, in its order:
    /// `Host`, its `Accept: */*` default (unless the request names an `Accept` or removes it),
    /// an `Authorization` for Basic credentials, the lines of `CURLOPT_HTTPHEADER` (the
    /// request's own list, or the session's shared one), and the body's framing.
    ///
    /// `CURLOPT_HTTPHEADER` syntax is undone as libcurl does: `Name;` sends an empty value and
    /// `Name:` sends nothing (it only stops libcurl from adding its own).
    func headerLines(_ exchange: StubExchange) -> [String] {
        let context = exchange.transfer.context
        let list = exchange.handle.options.sessionHeaders ? handles.sessionHeaders : context.headerList
        var listed: [String] = []
        var named = Set<String>()
        var node = list
        while let current = node {
            defer { node = current.pointee.next }
            guard let data = current.pointee.data else { continue }
            let line = String(cString: data)
            if let colon = line.firstIndex(of: ":") {
                let name = String(line[..<colon])
                named.insert(name.lowercased())
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if !value.isEmpty { listed.append("\(name): \(value)") }
            } else if line.hasSuffix(";") {
                let name = String(line.dropLast())
                named.insert(name.lowercased())
                listed.append("\(name):")
            }
        }
        var lines = ["Host: \(Self.hostField(context.request.url))"]
        if !named.contains("authorization"), let (user, password) = Self.basicCredentials(context) {
            lines.append("Authorization: Basic \(Data("\(user):\(password)".utf8).base64EncodedString())")
        }
        if !named.contains("accept") { lines.append("Accept: */*") }
        lines += listed
        if context.request.body != nil {
            if let length = context.uploadLength {
                if !named.contains("content-length") { lines.append("Content-Length: \(length)") }
            } else if !named.contains("transfer-encoding") {
                lines.append("Transfer-Encoding: chunked")
            }
        } else if context.request.method == .post, !named.contains("content-length") {
            lines.append("Content-Length: 0")
        }
        return lines
    }

    /// The user and password libcurl answers with Basic before any challenge: a Basic
    /// credential of the hop, or the URL's own user information. Other methods wait for a
    /// challenge, which a stub answers like any server.
    private static func basicCredentials(_ context: TransferContext) -> (String, String)? {
        if let credential = context.hopCredential {
            return credential.method == .basic ? (credential.username, credential.password) : nil
        }
        let url = context.request.url
        guard let user = url.user(percentEncoded: false) else { return nil }
        return (user, url.password(percentEncoded: false) ?? "")
    }

    /// `Host` as libcurl writes it: the host, with the port unless it is the scheme's default.
    private static func hostField(_ url: URL) -> String {
        let host = url.host ?? ""
        let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let port = url.port else { return shown }
        let isDefault = (url.scheme?.lowercased() == "https" && port == 443) || (url.scheme?.lowercased() == "http" && port == 80)
        return isDefault ? shown : "\(shown):\(port)"
    }
}
