// swift-tools-version:6.0
import PackageDescription

// The Curlew benchmark harness: one executable per Swift client, plus the report tool.
//
// Build in release mode (`swift build -c release --product NAME`); `run.sh` builds each
// product on its own, so a client whose build fails is skipped without stopping the others.
//
// With CURLEW_BENCH_PEERS_ONLY=1 in the environment the root package and the curlew-bench
// target are left out, so the peers can be built and measured while the root package does
// not load (run.sh falls back to this, loudly).
let peersOnly = Context.environment["CURLEW_BENCH_PEERS_ONLY"] == "1"

// A path dependency's identity is its folder's name, whatever the clone was called.
let rootPackageName = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "main")

let curlewDependencies: [Package.Dependency] = peersOnly ? [] : [.package(path: "..")]
let curlewTargets: [Target] = peersOnly ? [] : [
    .executableTarget(
        name: "curlew-bench",
        dependencies: ["BenchSupport", .product(name: "Curlew", package: rootPackageName)],
        path: "Sources/CurlewBench"
    ),
    // 1,000 WebSockets on one session, memory per connection (scripts/websocket.sh).
    .executableTarget(
        name: "websocket-bench",
        dependencies: ["BenchSupport", .product(name: "Curlew", package: rootPackageName)],
        path: "Sources/WebSocketBench"
    ),
]

let package = Package(
    name: "CurlewBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: curlewDependencies + [
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
    ],
    targets: [
        // Shared by every Swift client: arguments, clocks, rusage, VmHWM, percentiles, JSON.
        .target(name: "BenchSupport"),
        .executableTarget(
            name: "ahc-bench",
            dependencies: [
                "BenchSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/AHCBench"
        ),
        .executableTarget(
            name: "urlsession-bench",
            dependencies: ["BenchSupport"],
            path: "Sources/URLSessionBench"
        ),
        .executableTarget(name: "bench-report", dependencies: ["BenchSupport"], path: "Sources/BenchReport"),
    ] + curlewTargets,
    swiftLanguageModes: [.v6]
)
