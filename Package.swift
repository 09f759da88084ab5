// swift-tools-version:6.0
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Osprey",
    platforms: [
        .macOS(.v12),
        .iOS(.v15),
        .tvOS(.v15),
        .watchOS(.v8),
    ],
    products: [
        .library(name: "Promises", targets: ["Promises"]),
        .library(name: "Osprey", targets: ["Osprey"]),
        .library(name: "OspreyTesting", targets: ["OspreyTesting"]),
        .executable(name: "osprey-demo", targets: ["OspreyDemo"]),
        .executable(name: "osprey-bench", targets: ["OspreyBench"]),
        .executable(name: "osprey-example-declarative", targets: ["DeclarativeExample"]),
        .executable(name: "osprey-example-github", targets: ["GitHubExample"]),
        .executable(name: "osprey-example-async", targets: ["AsyncClientExample"]),
        .executable(name: "osprey-example-streaming", targets: ["StreamingExample"]),
        .executable(name: "osprey-fuzz", targets: ["OspreyFuzz"]),
    ],
    targets: [
        .target(name: "Promises"),
        // libcurl's few functions, declared here and loaded with dlopen (Linux only).
        .target(name: "CCurl"),
        // The public-suffix list through the system's libpsl, loaded with dlopen (Linux only).
        .target(name: "CPublicSuffix"),
        // zlib's raw deflate for WebSocket compression, loaded with dlopen (Linux only).
        .target(name: "CZlib"),
        .target(
            name: "Osprey",
            dependencies: [
                "Promises", "OspreyMacros", .target(name: "CCurl", condition: .when(platforms: [.linux])),
                .target(name: "CPublicSuffix", condition: .when(platforms: [.linux])),
                .target(name: "CZlib", condition: .when(platforms: [.linux])),
            ]
        ),
        // `@API` and `@Mock`: a compiler plugin that speaks the plugin protocol itself (no
        // swift-syntax), around a parser and generator the tests use directly.
        .target(name: "OspreyMacroKit"),
        .macro(name: "OspreyMacros", dependencies: ["OspreyMacroKit"]),
        .target(name: "OspreyTesting", dependencies: ["Osprey"]),
        .executableTarget(
            name: "OspreyDemo",
            dependencies: ["Osprey", "OspreyTesting"],
            path: "Examples/Demo"
        ),
        .executableTarget(
            name: "DeclarativeExample",
            dependencies: ["Osprey", "OspreyTesting"],
            path: "Examples/Declarative"
        ),
        // The GitHub client is a library of its own so that ExamplesTests can test it.
        .target(
            name: "GitHubClientExample",
            dependencies: ["Osprey"],
            path: "Examples/GitHubClient/Client"
        ),
        .executableTarget(
            name: "GitHubExample",
            dependencies: ["GitHubClientExample", "Osprey", "OspreyTesting"],
            path: "Examples/GitHubClient/App"
        ),
        .target(
            name: "ViewModelExample",
            dependencies: ["Osprey"],
            path: "Examples/ViewModel"
        ),
        .executableTarget(
            name: "AsyncClientExample",
            dependencies: ["Osprey", "OspreyTesting"],
            path: "Examples/AsyncClient"
        ),
        .executableTarget(
            name: "StreamingExample",
            dependencies: ["Osprey", "OspreyTesting"],
            path: "Examples/Streaming"
        ),
        .executableTarget(
            name: "OspreyBench",
            dependencies: ["Osprey", "OspreyTesting"],
            path: "Benchmarks/Bench"
        ),
        // Fuzz targets for the parsers of bytes a server or a user controls (Scripts/fuzz.sh
        // links libFuzzer in; a plain build replays inputs), and libFuzzer's driver, weakly.
        .target(name: "CFuzzing", path: "Fuzz/CFuzzing"),
        .target(name: "OspreyFuzzTargets", dependencies: ["Osprey", "OspreyMacroKit"], path: "Fuzz/Targets"),
        .executableTarget(
            name: "OspreyFuzz",
            dependencies: ["OspreyFuzzTargets", "CFuzzing"],
            path: "Fuzz/Driver"
        ),
        .target(name: "OspreyTestSupport", dependencies: ["OspreyTesting"], path: "Tests/OspreyTestSupport"),
        .testTarget(name: "PromisesTests", dependencies: ["Promises", "OspreyTesting", "OspreyTestSupport"]),
        // One hostile transfer per process, for OspreyTests to measure its peak memory alone.
        .executableTarget(
            name: "OspreyMemoryProbe",
            dependencies: ["Osprey", "OspreyTesting"],
            path: "Tests/MemoryProbe"
        ),
        .executableTarget(
            name: "OspreyStreamProbe",
            dependencies: ["Osprey", "OspreyTesting"],
            path: "Tests/StreamProbe"
        ),
        .testTarget(
            name: "OspreyTests",
            dependencies: ["Osprey", "OspreyTesting", "OspreyFuzzTargets", "OspreyTestSupport"],
            // The WebSocket tests' server, which they start with the venv's python.
            exclude: ["WebSocket/websocket_server.py", "WebSocket/connect_proxy.py"]),
        .testTarget(name: "OspreyTestingTests", dependencies: ["OspreyTesting", "OspreyTestSupport"]),
        .testTarget(name: "OspreyMacroKitTests", dependencies: ["OspreyMacroKit", "OspreyTestSupport"]),
        .testTarget(
            name: "OspreyDeclarativeTests", dependencies: ["Osprey", "OspreyTesting", "OspreyTestSupport"]),
        .testTarget(
            name: "ExamplesTests",
            dependencies: [
                "GitHubClientExample", "ViewModelExample", "Osprey", "OspreyTesting", "OspreyTestSupport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
