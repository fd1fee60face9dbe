// swift-tools-version:6.1
import PackageDescription

// Benchmarks live in their own package so the test build never compiles them.
// Run: swift run -c release --package-path Benchmarks trellis-bench
let package = Package(
    name: "TrellisBenchmarks",
    dependencies: [.package(name: "Trellis", path: "..")],
    targets: [
        .executableTarget(
            name: "trellis-bench",
            dependencies: [
                .product(name: "TrellisCore", package: "Trellis"),
                .product(name: "TrellisEngine", package: "Trellis"),
                .product(name: "TrellisUnits", package: "Trellis"),
                .product(name: "TrellisGraph", package: "Trellis"),
                .product(name: "TrellisAudioFile", package: "Trellis"),
                .product(name: "TrellisChain", package: "Trellis"),
                .product(name: "TrellisAV", package: "Trellis"),
            ],
            path: "Sources/TrellisBench"
        )
    ]
)
