// swift-tools-version:6.1
import PackageDescription

// Four small programs that use Trellis as a Swift developer would: the package depends
// on Trellis by path (TRELLIS_PATH, or the folder above), and each program imports only
// TrellisAV, where on Apple's platforms it would import AVFoundation.
let trellis = Context.environment["TRELLIS_PATH"] ?? ".."
let av: Target.Dependency = .product(name: "TrellisAV", package: "Trellis")

let package = Package(
    name: "TrellisExamples",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Trellis", path: trellis)],
    targets: [
        .executableTarget(name: "OfflineRender", dependencies: [av]),
        .executableTarget(name: "SynchronizedLoops", dependencies: [av]),
        .executableTarget(name: "MeteredRecorder", dependencies: [av]),
        .executableTarget(name: "TapToFile", dependencies: [av]),
        // Runs each program against a private jackd (or offline) and checks what it made.
        .testTarget(name: "ExamplesTests", dependencies: [av, .product(name: "TrellisJACK", package: "Trellis")]),
    ]
)
