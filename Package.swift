// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Curlew",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Curlew", targets: ["Curlew"]),
        .library(name: "CurlewXML", targets: ["CurlewXML"]),
        .library(name: "CurlewOpenAPI", targets: ["CurlewOpenAPI"]),
        .library(name: "CurlewTesting", targets: ["CurlewTesting"]),
        // The httpie-style command-line client, on the public API of Curlew and CurlewXML only.
        .executable(name: "curlew", targets: ["CurlewCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-service-context.git", from: "1.5.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // The command-line client's option parsing (the CurlewCLI target only, never the library's).
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // Documentation only: `swift package generate-documentation` (scripts/docs.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Test-only: the in-process HTTP test server. Not part of the library products' graph.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Test-only: the OpenAPI server the generated-client tests run against.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CCurlShims", dependencies: ["CCurl"]),
        // Certificate inspection for trust policies, through the OpenSSL libcurl's OpenSSL
        // backend uses (Debian's libssl-dev).
        .target(
            name: "CTLSShims", dependencies: ["CCurl"],
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]
        ),
        // zlib, brotli and zstd for Curlew's own content decoding (see docs/ARCHITECTURE.md):
        // Debian's zlib1g-dev, libbrotli-dev and libzstd-dev.
        .target(
            name: "CDecompression",
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("brotlidec"), .linkedLibrary("zstd")]
        ),
        // The Public Suffix List for cookie domains, through libpsl (Debian's libpsl-dev; libcurl
        // already links libpsl5).
        .systemLibrary(name: "CPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),
        .target(
            name: "Curlew",
            dependencies: [
                "CCurlShims",
                "CTLSShims",
                "CDecompression",
                "CPSL",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceContextModule", package: "swift-service-context"),
            ]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .target(name: "CurlewXML", dependencies: ["Curlew", "CLibXML2"]),
        .target(
            name: "CurlewOpenAPI",
            dependencies: [
                "Curlew",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Stubs for the tests of code that uses Curlew: answers in place of libcurl's transfer.
        .target(
            name: "CurlewTesting",
            dependencies: ["Curlew", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .executableTarget(
            name: "CurlewCLI",
            dependencies: [
                "Curlew",
                "CurlewXML",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .systemLibrary(name: "CTestCompression", path: "Tests/CTestCompression"),
        .target(
            name: "TestServer",
            dependencies: [
                "CTestCompression",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/TestServer",
            // Servers written by others, run as child processes (Python's `websockets`).
            exclude: ["Scripts"]
        ),
        .testTarget(
            name: "CurlewTests",
            dependencies: [
                "Curlew", "TestServer",
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            // Read from the source tree by path (the HAR schema check runs Python on them).
            exclude: ["Resources"]
        ),
        .testTarget(
            name: "CurlewTestingTests",
            dependencies: ["CurlewTesting", "Curlew", "TestServer", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // Runs the built `curlew` binary as a child process against the in-process TestServer.
        .testTarget(name: "CurlewCLITests", dependencies: ["TestServer"]),
        .testTarget(name: "CurlewXMLTests", dependencies: ["CurlewXML", "Curlew", "TestServer"]),
        // Every ```swift block of README.md, compiled (see scripts/readme-snippets.sh).
        .testTarget(
            name: "ReadmeSnippetTests",
            dependencies: [
                "Curlew", "CurlewXML", "CurlewOpenAPI", "CurlewTesting",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The generated client and server stubs are committed (scripts/openapi-generate.sh
        // regenerates them), so no build runs the generator.
        .testTarget(
            name: "CurlewOpenAPITests",
            dependencies: [
                "CurlewOpenAPI",
                "Curlew",
                "TestServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
            ],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
