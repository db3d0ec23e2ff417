// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CurlewExamples",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // A tiny embedded HTTP server so that every example runs offline.
        .target(
            name: "DemoServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "Tour", dependencies: [.product(name: "Curlew", package: "main"), "DemoServer"]),
        .executableTarget(
            name: "OAuth2Burst",
            dependencies: [
                .product(name: "Curlew", package: "main"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "Serializers",
            dependencies: [
                .product(name: "Curlew", package: "main"), .product(name: "CurlewXML", package: "main"), "DemoServer",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
