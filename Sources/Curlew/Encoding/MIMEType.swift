import Foundation

/// A built-in table from file extensions to MIME types, used to label file bodies and
/// multipart file parts.
///
/// ```swift
/// MIMEType.forFileExtension("PNG")          // "image/png"
/// MIMEType.forFileName("report.tar.gz")     // "application/gzip"
/// MIMEType.forFileName("notes.unknown")     // "application/octet-stream"
/// ```
enum MIMEType {
    /// The type for an unknown extension.
    static let fallback = "application/octet-stream"

    /// The type for a file extension (without the dot, any case), or nil when it is not in
    /// the table.
    static func forFileExtension(_ fileExtension: String) -> String? {
        table[fileExtension.lowercased()]
    }

    /// The type for a file name from its last extension, or ``fallback``.
    static func forFileName(_ fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return fallback }
        return forFileExtension(String(fileName[fileName.index(after: dot)...])) ?? fallback
    }

    private static let table: [String: String] = [
        // Text
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "conf": "text/plain",
        "md": "text/markdown", "markdown": "text/markdown",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "ics": "text/calendar", "vcf": "text/vcard",
        "rtf": "application/rtf", "xml": "application/xml", "xsl": "application/xml",
        "js": "text/javascript", "mjs": "text/javascript",
        "json": "application/json", "jsonld": "application/ld+json", "map": "application/json",
        "ndjson": "application/x-ndjson", "jsonl": "application/jsonl",
        "yaml": "application/yaml", "yml": "application/yaml", "toml": "application/toml",
        "swift": "text/x-swift", "c": "text/x-c", "h": "text/x-c", "py": "text/x-python",
        "sh": "application/x-sh",
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg",
        "gif": "image/gif", "webp": "image/webp", "avif": "image/avif", "heic": "image/heic",
        "heif": "image/heif", "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff",
        "ico": "image/vnd.microsoft.icon", "svg": "image/svg+xml", "svgz": "image/svg+xml",
        // Audio
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac",
        "mid": "audio/midi", "midi": "audio/midi", "weba": "audio/webm",
        // Video
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo", "mpeg": "video/mpeg",
        "mpg": "video/mpeg", "ogv": "video/ogg", "3gp": "video/3gpp", "ts": "video/mp2t",
        // Fonts
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        // Archives and compressed data
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "zst": "application/zstd",
        "br": "application/x-brotli", "tar": "application/x-tar", "7z": "application/x-7z-compressed",
        "rar": "application/vnd.rar", "jar": "application/java-archive",
        // Documents
        "pdf": "application/pdf", "epub": "application/epub+zip",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text",
        "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "odp": "application/vnd.oasis.opendocument.presentation",
        // Binary and application data
        "bin": "application/octet-stream", "exe": "application/octet-stream",
        "dmg": "application/x-apple-diskimage", "iso": "application/x-iso9660-image",
        "deb": "application/vnd.debian.binary-package", "rpm": "application/x-rpm",
        "wasm": "application/wasm", "plist": "application/x-plist",
        "pem": "application/x-pem-file", "crt": "application/x-x509-ca-cert",
        "der": "application/x-x509-ca-cert", "p12": "application/x-pkcs12",
        "sqlite": "application/vnd.sqlite3", "db": "application/octet-stream",
        "parquet": "application/vnd.apache.parquet", "protobuf": "application/x-protobuf",
        "pb": "application/x-protobuf",
    ]
}
