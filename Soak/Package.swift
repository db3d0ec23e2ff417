// swift-tools-version:6.0
import PackageDescription

// The Curlew soak test: `scripts/soak.sh MINUTES` builds and runs `curlew-soak` against the
// in-process test server of Tests/TestServer.
//
// TestServer is a target of the root package, not a product, so it cannot be depended on from
// here; Sources/TestServer and Sources/CTestCompression are symbolic links to the root package's
// Tests/TestServer and Tests/CTestCompression, compiled again as targets of this package.

// A path dependency's identity is its folder's name, whatever the clone was called.
let rootPackageName = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "main")

let package = Package(
    name: "CurlewSoak",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .systemLibrary(name: "CTestCompression", path: "Sources/CTestCompression"),
        .target(
            name: "TestServer",
            dependencies: [
                "CTestCompression",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/TestServer"
        ),
        .executableTarget(
            name: "curlew-soak",
            dependencies: [
                "TestServer",
                .product(name: "Curlew", package: rootPackageName),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Sources/CurlewSoak"
        ),
    ],
    swiftLanguageModes: [.v6]
)
