// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Depot",
    // What the code needs: `Duration`, `ContinuousClock` and `Task.sleep(for:)` (macOS 13, iOS 16,
    // tvOS 16, watchOS 9); `LiveQuery` (Observation) says `@available` for macOS 14 / iOS 17. The
    // dependencies ask for less (GRDB 7: iOS 13, macOS 10.15, tvOS 13, watchOS 7). CI builds on
    // Linux only: the Apple platforms are declared, not compile-checked there.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "DepotPromise", targets: ["DepotPromise"]),
        .library(name: "Depot", targets: ["Depot"]),
        .library(name: "DepotTesting", targets: ["DepotTesting"]),
        .library(name: "DepotSQLite", targets: ["DepotSQLite"]),
        .library(name: "DepotAsyncHTTPClient", targets: ["DepotAsyncHTTPClient"]),
        .library(name: "DepotPostgres", targets: ["DepotPostgres"]),
        .executable(name: "Messages", targets: ["Messages"]),
        .executable(name: "Relay", targets: ["Relay"]),
    ],
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: "Builds DepotAsyncHTTPClient, a transport on swift-server/async-http-client."
        ),
        .trait(
            name: "Postgres",
            description: "Builds DepotPostgres, a storage and outbox shared by a fleet on vapor/postgres-nio."
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .target(name: "DepotPromise"),
        .target(
            name: "Depot",
            dependencies: [
                "DepotPromise",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "DepotTesting",
            dependencies: [
                "Depot",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "DepotSQLite",
            dependencies: [
                "Depot",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "DepotAsyncHTTPClient",
            dependencies: [
                "Depot",
                .product(
                    name: "AsyncHTTPClient",
                    package: "async-http-client",
                    condition: .when(traits: ["AsyncHTTPClient"])
                ),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "DepotPostgres",
            dependencies: [
                "Depot",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "Messages",
            dependencies: [
                "Depot", "DepotTesting", "DepotSQLite", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/Messages"
        ),
        .executableTarget(
            name: "Relay",
            dependencies: [
                "Depot", "DepotTesting", "DepotSQLite", .product(name: "Logging", package: "swift-log"),
                .target(name: "DepotPostgres", condition: .when(traits: ["Postgres"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Examples/Relay"
        ),
        .executableTarget(
            name: "OutboxCrashTest",
            dependencies: [
                "Depot", "DepotSQLite", "DepotTesting", "SoakSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/OutboxCrashTest"
        ),
        // Replicas on one shared store, SIGKILLed and restarted mid-forward; `--throughput` measures
        // forwarding with 1, 2 and 3 replicas. `--store postgres:<url>` needs the Postgres trait.
        .executableTarget(
            name: "FleetCrashTest",
            dependencies: [
                "Depot", "DepotSQLite", "DepotTesting", "SoakSupport",
                .target(name: "DepotPostgres", condition: .when(traits: ["Postgres"])),
            ],
            path: "Tests/FleetCrashTest"
        ),
        .target(
            name: "SoakSupport",
            dependencies: ["Depot", "DepotSQLite", "DepotTesting", .product(name: "Logging", package: "swift-log")],
            path: "Tests/SoakSupport"
        ),
        // Every ```swift block of README.md and the DocC articles, compiled with the imports it
        // shows (scripts/snippets writes one file per block in Generated/; Prelude.swift declares
        // what the blocks use without showing). Member lookups need their module imported in the
        // block's file too (MemberImportVisibility), as in a reader's file. In no product;
        // compiled, never linked or run. Verbatim blocks leave unused values, so its warnings are
        // silenced.
        .target(
            name: "DocSnippets",
            dependencies: ["Depot", "DepotSQLite", "DepotTesting"],
            path: "Tests/DocSnippets",
            swiftSettings: [
                .enableUpcomingFeature("MemberImportVisibility"), .unsafeFlags(["-suppress-warnings"]),
            ]
        ),
        .executableTarget(
            name: "Soak",
            dependencies: [
                "Depot", "DepotSQLite", "DepotTesting", "SoakSupport",
                .target(name: "DepotPostgres", condition: .when(traits: ["Postgres"])),
            ],
            path: "Tests/Soak"
        ),
        .testTarget(name: "DepotPromiseTests", dependencies: ["DepotPromise"]),
        .testTarget(
            name: "DepotSQLiteTests",
            dependencies: [
                "DepotSQLite", "Depot", "DepotTesting", "SoakSupport", "DepotPostgres",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "DepotTests",
            dependencies: [
                "Depot", "DepotTesting", "DepotAsyncHTTPClient",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
