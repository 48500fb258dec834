// swift-tools-version:6.1
import PackageDescription

// Benchmarks for Depot, kept in their own package so the library never depends on them. Built
// with Depot's AsyncHTTPClient and Postgres traits; only PostgresRatios depends on DepotPostgres,
// so the other executables never compile postgres-nio and BoringSSL.
//   swift run -c release Ratios                          # ratios against baselines, same run
//   DEPOT_POSTGRES_URL=… swift run -c release PostgresRatios   # PostgreSQL, its own executable
//   swift run -c release TransportRatios                 # read(id) vs raw clients, no GRDB either
//   swift package --disable-sandbox benchmark            # ordo-one: wall time and mallocs
let package = Package(
    name: "DepotBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Depot", path: "..", traits: ["AsyncHTTPClient", "Postgres"]),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "Ratios",
            dependencies: [
                .product(name: "Depot", package: "Depot"),
                .product(name: "DepotTesting", package: "Depot"),
                .product(name: "DepotAsyncHTTPClient", package: "Depot"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "DepotSQLite", package: "Depot"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Measure.swift is a link to Ratios' own (one copy of the timing helpers).
        .executableTarget(
            name: "PostgresRatios",
            dependencies: [
                .product(name: "Depot", package: "Depot"),
                .product(name: "DepotPostgres", package: "Depot"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The transport section alone; its two sources are links to Ratios' own.
        .executableTarget(
            name: "TransportRatios",
            dependencies: [
                .product(name: "Depot", package: "Depot"),
                .product(name: "DepotTesting", package: "Depot"),
                .product(name: "DepotAsyncHTTPClient", package: "Depot"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .executableTarget(
            name: "PromiseBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Depot", package: "Depot"),
            ],
            path: "Benchmarks/PromiseBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "RequestBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Depot", package: "Depot"),
                .product(name: "DepotTesting", package: "Depot"),
                .product(name: "DepotAsyncHTTPClient", package: "Depot"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            path: "Benchmarks/RequestBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
