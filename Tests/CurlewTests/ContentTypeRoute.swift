import Foundation
import TestServer

extension TestServer {
    /// The URL of the `/content-type` route, which answers `body` with the `Content-Type` `type`.
    func contentTypeURL(type: String, body: String) -> URL {
        let encodedType = type.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let encodedBody = body.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return url("/content-type?type=\(encodedType)&body=\(encodedBody)")
    }
}
