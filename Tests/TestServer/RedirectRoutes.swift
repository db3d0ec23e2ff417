import NIOCore

/// Redirect routes: `/redirect/{n}`, `/relative-redirect/{n}`, `/absolute-redirect/{n}`,
/// `/redirect-to?url=U&status_code=S`, `/redirect-loop`.
///
/// A chain of n redirects ends at `/get` (n = 0 answers like `/get` directly).
enum RedirectRoutes {
    static func respond(
        _ request: ReceivedRequest, segments: [String], allocator: ByteBufferAllocator
    ) -> ResponseScript {
        switch segments[0] {
        case "redirect-to":
            guard let target = request.queryValue("url"), !target.isEmpty,
                !target.contains(where: { $0 == "\r" || $0 == "\n" })
            else {
                return Router.badRequest(request, "expected ?url= with the redirect target", allocator)
            }
            let status = request.queryInt("status_code", default: 302)
            guard (300..<400).contains(status) else {
                return Router.badRequest(request, "status_code must be a 3xx code", allocator)
            }
            return redirect(request, status: status, to: target, allocator: allocator)
        case "redirect-loop":
            return redirect(request, status: 302, to: "/redirect-loop", allocator: allocator)
        default:
            guard segments.count == 2, let remaining = Int(segments[1]), remaining >= 0 else {
                return Router.badRequest(request, "expected /\(segments[0])/{count}", allocator)
            }
            if remaining == 0 {
                return EchoRoutes.echo(request, allocator: allocator)
            }
            let location: String
            switch (segments[0], remaining) {
            case ("absolute-redirect", 1):
                location = "http://\(request.authority)/get"
            case ("absolute-redirect", _):
                location = "http://\(request.authority)/absolute-redirect/\(remaining - 1)"
            case (_, 1):
                location = "/get"
            case ("relative-redirect", _):
                // A relative reference, resolved against /relative-redirect/{n}.
                location = String(remaining - 1)
            default:
                location = "/redirect/\(remaining - 1)"
            }
            return redirect(request, status: 302, to: location, allocator: allocator)
        }
    }

    /// An empty redirect response to `location`.
    static func redirect(
        _ request: ReceivedRequest, status: Int, to location: String, allocator: ByteBufferAllocator
    ) -> ResponseScript {
        Reply.empty(request, status: status, headers: [("Location", location)], allocator: allocator)
    }
}
