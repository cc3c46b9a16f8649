// swift-tools-version:6.1
import PackageDescription

// The import graph is the architecture: C shims at the bottom, pure protocol and wire
// modules with no I/O, the epoll runtime, storage on top of the runtime, and the server
// module wiring them together. `whisper-server` is only `main`.
let package = Package(
    name: "whisper-relay",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "whisper-server", targets: ["whisper-server"]),
        .executable(name: "whisper-bench", targets: ["whisper-bench"]),
        // The client core an iOS or Android-parity app embeds (issue #28), its Linux transport,
        // and the `whisper` CLI on both.
        .library(name: "WhisperClient", targets: ["WhisperClient"]),
        .library(name: "WhisperClientLinux", targets: ["WhisperClientLinux"]),
        .executable(name: "whisper", targets: ["whisper"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // MARK: C libraries and shims
        .target(name: "CLinux"),
        // The commit and build date of the binary: weak "unknown" defaults, overridden by the
        // git-ignored BuildInfoGenerated.c that scripts/lib/buildinfo.sh writes (BuildInfo).
        .target(name: "CBuildInfo"),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // MARK: Pure modules (no I/O)
        .target(name: "WhisperProtocol"),
        .target(name: "WhisperHTTP", dependencies: ["WhisperProtocol"]),
        .target(name: "WhisperWebSocket", dependencies: ["WhisperProtocol", "CZlib", "COpenSSL"]),
        .target(name: "WhisperOps", dependencies: ["CLinux", "CBuildInfo", "WhisperProtocol"]),
        // A blocking client of the admin listener (libcurl: names, TLS) and the `whisper-server
        // admin` commands on it (the bench reads /metrics with the same client).
        .target(name: "WhisperAdmin", dependencies: [
            "WhisperProtocol", "WhisperOps", "CCurl", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // MARK: I/O
        .target(name: "WhisperRuntime", dependencies: ["CLinux", "COpenSSL", "WhisperOps"]),
        .target(name: "WhisperStorage", dependencies: ["WhisperRuntime", "CPostgres", "CHiredis", "WhisperOps", "WhisperProtocol"]),
        .target(name: "WhisperServices", dependencies: ["WhisperProtocol", "WhisperOps", "CSodium", "COpenSSL"]),
        // The Redis and PostgreSQL implementations of the services' store protocols, and the Lua
        // scripts behind them.
        .target(name: "WhisperStores", dependencies: [
            "WhisperServices", "WhisperStorage", "WhisperProtocol", "WhisperRuntime", "WhisperOps", "CCurl",
        ]),
        .target(name: "WhisperServer", dependencies: [
            "WhisperServices", "WhisperStores",
            "CLinux",
            "WhisperProtocol", "WhisperHTTP", "WhisperWebSocket", "WhisperRuntime", "WhisperStorage",
            "WhisperOps", "CCurl",
        ]),
        .executableTarget(name: "whisper-server", dependencies: [
            "WhisperServer", "WhisperOps", "CLinux", "WhisperAdmin",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // MARK: Client
        // The client half of the spec (docs/client.md). Pure protocol, libsodium and Foundation
        // only — no runtime, storage or server module, nothing Linux-specific (the network is
        // behind `ClientTransport`) — so it can build for Apple platforms. PBKDF2 and HKDF are
        // built on libsodium's HMAC: no OpenSSL.
        .target(name: "WhisperClient", dependencies: ["WhisperProtocol", "CSodium"]),
        // The platform half: `ClientTransport` over blocking sockets and OpenSSL, speaking the
        // WebSocket codec of WhisperWebSocket. No runtime (epoll) or server module.
        .target(name: "WhisperClientLinux", dependencies: ["WhisperClient", "WhisperWebSocket", "WhisperProtocol", "COpenSSL"]),
        .executableTarget(name: "whisper", dependencies: [
            "WhisperClient", "WhisperClientLinux", "WhisperProtocol",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // MARK: Load generator
        // Drives the server over real WebSockets like phones do; shares the runtime and codecs
        // with the server but none of its logic.
        .target(name: "WhisperBench", dependencies: [
            "WhisperRuntime", "WhisperWebSocket", "WhisperProtocol", "WhisperOps", "CLinux", "CSodium", "WhisperAdmin",
            .product(name: "Histogram", package: "hdrhistogram-swift"),
        ]),
        .executableTarget(name: "whisper-bench", dependencies: [
            "WhisperBench", "WhisperAdmin",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // MARK: Tests
        .target(name: "WhisperTesting", dependencies: ["WhisperServer", "WhisperStorage", "WhisperOps", "WhisperProtocol", "COpenSSL", "CSodium"]),
        .testTarget(name: "WhisperProtocolTests", dependencies: ["WhisperProtocol", "WhisperTesting"], exclude: ["Fixtures"]),
        .testTarget(name: "WhisperHTTPTests", dependencies: ["WhisperHTTP", "WhisperTesting"]),
        .testTarget(name: "WhisperWebSocketTests", dependencies: ["WhisperWebSocket", "CZlib"]),
        .testTarget(name: "WhisperOpsTests", dependencies: ["WhisperOps", "WhisperProtocol"]),
        .testTarget(name: "WhisperRuntimeTests", dependencies: ["WhisperRuntime", "WhisperTesting"]),
        .testTarget(name: "WhisperStorageTests", dependencies: ["WhisperStorage", "WhisperRuntime", "WhisperOps", "WhisperTesting"]),
        .testTarget(name: "WhisperServicesTests", dependencies: ["WhisperServices", "WhisperProtocol", "WhisperOps", "CSodium", "COpenSSL", "WhisperTesting"]),
        .testTarget(name: "WhisperBenchTests", dependencies: ["WhisperBench", "WhisperTesting", "WhisperProtocol", "WhisperWebSocket", "WhisperAdmin"]),
        .testTarget(name: "WhisperClientTests", dependencies: ["WhisperClient", "WhisperProtocol"]),
        // The client against a real server (PostgreSQL, Redis), and the built `whisper` binary.
        .testTarget(name: "WhisperClientServerTests", dependencies: [
            "WhisperClient", "WhisperClientLinux", "WhisperProtocol", "WhisperTesting", "WhisperStorage",
        ]),
        .testTarget(name: "WhisperAdminTests", dependencies: ["WhisperAdmin", "WhisperProtocol"]),
        .testTarget(name: "WhisperServerTests", dependencies: ["WhisperServer", "WhisperStores", "WhisperServices", "WhisperStorage", "WhisperProtocol", "WhisperTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
