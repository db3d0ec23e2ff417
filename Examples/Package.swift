// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CurlewExamples",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so that the root package is "Curlew" whatever its folder is called.
        .package(name: "Curlew", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        // A tiny embedded HTTP server so that every example runs offline.
        .target(
            name: "DemoServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        // The demo server alone, until stopped: for `curlew` in scripts/demo.sh.
        .executableTarget(name: "DemoServe", dependencies: ["DemoServer"]),
        .executableTarget(name: "Tour", dependencies: [.product(name: "Curlew", package: "Curlew"), "DemoServer"]),
        .executableTarget(name: "Resume", dependencies: [.product(name: "Curlew", package: "Curlew"), "DemoServer"]),
        .executableTarget(
            name: "TestingTools",
            dependencies: [.product(name: "Curlew", package: "Curlew"), .product(name: "CurlewTesting", package: "Curlew"), "DemoServer"]
        ),
        .executableTarget(name: "Chat", dependencies: [.product(name: "Curlew", package: "Curlew"), "DemoServer"]),
        .executableTarget(name: "Router", dependencies: [.product(name: "Curlew", package: "Curlew"), "DemoServer"]),
        .executableTarget(
            name: "OAuth2Burst",
            dependencies: [
                .product(name: "Curlew", package: "Curlew"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "Serializers",
            dependencies: [
                .product(name: "Curlew", package: "Curlew"), .product(name: "CurlewXML", package: "Curlew"), "DemoServer",
            ]
        ),
        // A client generated from ../Tests/CurlewOpenAPITests/openapi.yaml (committed under
        // Generated/, see scripts/openapi-generate.sh) over CurlewTransport, against a tiny
        // Hummingbird server.
        .executableTarget(
            name: "OpenAPIClient",
            dependencies: [
                .product(name: "Curlew", package: "Curlew"), .product(name: "CurlewOpenAPI", package: "Curlew"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            exclude: ["openapi-generator-config.yaml"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
