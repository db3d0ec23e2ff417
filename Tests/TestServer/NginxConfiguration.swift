import Foundation

/// The `nginx.conf` text for ``NginxServer``: one HTTPS + HTTP/2 server block, and optionally a
/// plain HTTP/1.1 one, both serving the same document root and fixed locations.
struct NginxConfiguration {
    /// An exact path answered with the contents of a file.
    struct FixedLocation {
        var location: String
        var file: String
        var contentType: String
    }

    var prefix: URL
    var root: URL
    var port: Int
    var plainPort: Int?
    /// An HTTPS port that speaks HTTP/1.1 only (no `http2` on its listen line), for Alt-Svc
    /// tests: an origin whose `/alt-svc` points at ``port``, which speaks HTTP/2.
    var http1Port: Int?
    var certificates: TestCertificates
    var fixedLocations: [FixedLocation]

    /// Whether `path` can be written inside a quoted nginx string as is.
    static func isSafe(path: String) -> Bool {
        !path.contains { "\"$\\\n\r{};".contains($0) }
    }

    /// The configuration file's text. Every path nginx writes to is inside the prefix.
    var text: String {
        let p = prefix.path
        let locations = serverLocations
        var result = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid "\(p)/nginx.pid";
            error_log "\(p)/logs/error.log" warn;
            events {
                worker_connections 4096;
            }
            http {
                access_log off;
                client_body_temp_path "\(p)/tmp/body";
                proxy_temp_path "\(p)/tmp/proxy";
                fastcgi_temp_path "\(p)/tmp/fastcgi";
                uwsgi_temp_path "\(p)/tmp/uwsgi";
                scgi_temp_path "\(p)/tmp/scgi";
                types {
                    text/html html htm;
                    text/plain txt;
                    application/json json;
                    application/xml xml;
                }
                default_type application/octet-stream;
                sendfile on;
                tcp_nopush on;
                tcp_nodelay on;
                keepalive_timeout 65s;
                keepalive_requests 1000000;
                client_max_body_size 0;
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    server_name localhost;
                    ssl_certificate "\(certificates.certificateChainPath)";
                    ssl_certificate_key "\(certificates.privateKeyPath)";
                    ssl_protocols TLSv1.2 TLSv1.3;
                    ssl_session_cache shared:curlew:1m;
            \(locations)
                }

            """
        if let http1Port {
            result += """
                    server {
                        listen 127.0.0.1:\(http1Port) ssl;
                        server_name localhost;
                        ssl_certificate "\(certificates.certificateChainPath)";
                        ssl_certificate_key "\(certificates.privateKeyPath)";
                        ssl_protocols TLSv1.2 TLSv1.3;
                \(locations)
                    }

                """
        }
        if let plainPort {
            result += """
                    server {
                        listen 127.0.0.1:\(plainPort);
                        server_name localhost;
                \(locations)
                    }

                """
        }
        result += "}\n"
        return result
    }

    /// The root and locations shared by both server blocks.
    private var serverLocations: String {
        var lines = [
            "        root \"\(root.path)\";",
            "        location = /no-content { return 204; }",
            // What reached the origin, for proxy tests: the credential fields a proxy must not
            // forward and Curlew must never send to an origin.
            "        location = /request-headers { default_type text/plain; "
                + "return 200 \"proxy-authorization=[$http_proxy_authorization] authorization=[$http_authorization]\\n\"; }",
            // Whether this request's TLS session was resumed (`r`) or new (`.`).
            "        location = /tls-session { default_type text/plain; return 200 \"$ssl_session_reused\\n\"; }",
            // HSTS (RFC 6797): the header on every answer, over HTTPS and over plain HTTP (where
            // a client must ignore it); `/scheme` says what the request arrived over; and a
            // redirect to the plain-HTTP URL of `/scheme` on the same host and port.
            "        location = /hsts { default_type text/plain; add_header Strict-Transport-Security \"max-age=3600\" always; return 200 \"$scheme\\n\"; }",
            "        location = /hsts-subdomains { default_type text/plain; add_header Strict-Transport-Security \"max-age=3600; includeSubDomains\" always; return 200 \"$scheme\\n\"; }",
            "        location = /hsts-clear { default_type text/plain; add_header Strict-Transport-Security \"max-age=0\" always; return 200 \"$scheme\\n\"; }",
            "        location = /scheme { default_type text/plain; return 200 \"$scheme\\n\"; }",
            "        location = /redirect-to-plain { return 302 http://$host:$server_port/scheme; }",
            // Alt-Svc (RFC 7838): every answer says the port it came to and its protocol
            // (`HTTP/1.1` or `HTTP/2.0`); `/alt-svc` advertises the HTTP/2 port as an alternative
            // for an hour (from any port, plain HTTP too, where a client must ignore it),
            // `/alt-svc-forever` for a billion seconds, `/alt-svc-elsewhere` on another host
            // name (127.0.0.1), and `/alt-svc-clear` clears the origin's alternatives.
            "        location = /alt-svc { default_type text/plain; add_header Alt-Svc 'h2=\":\(port)\"; ma=3600' always; return 200 \"$server_port $server_protocol\\n\"; }",
            "        location = /alt-svc-forever { default_type text/plain; add_header Alt-Svc 'h2=\":\(port)\"; ma=1000000000' always; return 200 \"$server_port $server_protocol\\n\"; }",
            "        location = /alt-svc-elsewhere { default_type text/plain; add_header Alt-Svc 'h2=\"127.0.0.1:\(port)\"' always; return 200 \"$server_port $server_protocol\\n\"; }",
            "        location = /alt-svc-clear { default_type text/plain; add_header Alt-Svc 'clear' always; return 200 \"$server_port $server_protocol\\n\"; }",
            "        location = /protocol { default_type text/plain; return 200 \"$server_port $server_protocol\\n\"; }",
        ]
        for fixed in fixedLocations {
            lines.append(
                "        location = \(fixed.location) { default_type \(fixed.contentType); alias \"\(fixed.file)\"; }")
        }
        return lines.joined(separator: "\n")
    }
}
