// swift-tools-version:6.1
import PackageDescription

/// C libraries come in through pkg-config; each module map names one library.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// `TRELLIS_CHECK_REALTIME=1` turns on the compiler's real-time checks (`@_noAllocation`,
/// `@_noLocks`) on every kernel entry point and the program runner; `scripts/check-realtime`
/// builds that way, in release, where the checks see the code that really runs.
let realtimeChecks: [SwiftSetting] = Context.environment["TRELLIS_CHECK_REALTIME"] == "1"
    ? [.define("TRELLIS_CHECK_REALTIME")] : []
/// scripts/check-realtime's probe: an allocating line in the JACK process callback.
let jackRealtimeChecks = realtimeChecks + (Context.environment["TRELLIS_REALTIME_PROBE"] == "1" ? [.define("TRELLIS_REALTIME_PROBE")] : [])

let package = Package(
    name: "Trellis",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "trellis", targets: ["TrellisCLI"]),
        .library(name: "TrellisCore", targets: ["TrellisCore"]),
        .library(name: "TrellisEngine", targets: ["TrellisEngine"]),
        .library(name: "TrellisUnits", targets: ["TrellisUnits"]),
        .library(name: "TrellisGraph", targets: ["TrellisGraph"]),
        .library(name: "TrellisAudioFile", targets: ["TrellisAudioFile"]),
        .library(name: "TrellisAnalysis", targets: ["TrellisAnalysis"]),
        .library(name: "TrellisLV2", targets: ["TrellisLV2"]),
        .library(name: "TrellisJACK", targets: ["TrellisJACK"]),
        .library(name: "TrellisOffline", targets: ["TrellisOffline"]),
        .library(name: "TrellisSession", targets: ["TrellisSession"]),
        .library(name: "TrellisLive", targets: ["TrellisLive"]),
        .library(name: "TrellisMedia", targets: ["TrellisMedia"]),
        .library(name: "TrellisControl", targets: ["TrellisControl"]),
        .library(name: "TrellisNSM", targets: ["TrellisNSM"]),
        .library(name: "TrellisWeb", targets: ["TrellisWeb"]),
        .library(name: "TrellisChain", targets: ["TrellisChain"]),
        // AVFAudio's API on Trellis: code written for AVAudioEngine and friends ports by its import.
        .library(name: "TrellisAV", targets: ["TrellisAV"]),
        // The C interface (include/trellis.h): libTrellisC.so, installed as libtrellis.so (scripts/install-python).
        .library(name: "TrellisC", type: .dynamic, targets: ["TrellisC"]),
        // Trellis' units as LV2 plugins: the binary of Plugins/trellis.lv2 (scripts/install-plugins).
        .library(name: "TrellisLV2Plugins", type: .dynamic, targets: ["TrellisLV2Plugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    ],
    targets: [
        systemLibrary("CJack", pkgConfig: "jack", apt: "libjack-jackd2-dev"),
        systemLibrary("CLilv", pkgConfig: "lilv-0", apt: "liblilv-dev"),
        systemLibrary("CSndfile", pkgConfig: "sndfile", apt: "libsndfile1-dev"),
        systemLibrary("CSoxr", pkgConfig: "soxr", apt: "libsoxr-dev"),
        // Time stretching and pitch shifting (Rubber Band 3).
        systemLibrary("CRubberBand", pkgConfig: "rubberband", apt: "librubberband-dev"),
        // SoundFont 2 synthesis for the sampler: libfluidsynth (libfluidsynth-dev) through dlopen at first use.
        .target(name: "CFluidSynth"),
        systemLibrary("CLiblo", pkgConfig: "liblo", apt: "liblo-dev"),
        // Ogg Vorbis decoding with sample-exact seeking (libsndfile 1.2's Vorbis seek is not; libsndfile#885).
        systemLibrary("CVorbisfile", pkgConfig: "vorbisfile", apt: "libvorbis-dev"),
        // FLAC decoding that reads on past a damaged frame (libsndfile stops at the first).
        systemLibrary("CFLAC", pkgConfig: "flac", apt: "libflac-dev"),
        // EBU R128 / ITU-R BS.1770 loudness and true peak.
        systemLibrary("CEBUR128", pkgConfig: "libebur128", apt: "libebur128-dev"),
        // Cairo, which draws `analyze`'s pictures (PNG and SVG).
        systemLibrary("CCairo", pkgConfig: "cairo", apt: "libcairo2-dev"),
        // The LV2 headers, for the plugins Trellis exports.
        systemLibrary("CLV2", pkgConfig: "lv2", apt: "lv2-dev"),
        // Host time, FTZ/DAZ and the audio-thread mark: what the core needs, without libjack.
        .target(name: "CTrellisShim"),
        // The variadic jack_client_open, which Swift cannot call.
        .target(name: "CTrellisJACKShim", dependencies: ["CJack"]),
        .target(name: "CAllocationCounter"),
        // The loudness meter's inner loops (K-weighting, true-peak interpolation), fast in every build.
        .target(name: "CTrellisLoudness"),
        // The LV2 log feature's variadic printf (which Swift cannot implement), the library probe, serd's error text.
        .target(name: "CTrellisLV2Shim", dependencies: ["CLilv"]),

        // The model: descriptions, formats, buffers, the unit contract. No Foundation.
        .target(name: "TrellisCore", dependencies: ["CTrellisShim"], swiftSettings: realtimeChecks),
        // What the audio thread runs: programs, rings, the publish/retire slot. No Foundation.
        .target(name: "TrellisEngine", dependencies: ["TrellisCore", "CTrellisShim"], swiftSettings: realtimeChecks),
        // Built-in units. DSP only; no Foundation.
        .target(name: "TrellisUnits", dependencies: ["TrellisCore", "CSoxr"], swiftSettings: realtimeChecks),
        // Which units are exported as LV2 plugins, their ports and their Turtle. No Foundation.
        .target(name: "TrellisPlugins", dependencies: ["TrellisCore", "TrellisUnits", "TrellisSampler", "TrellisTimePitch"]),
        // The LV2 entry points around the units' kernels. Links the Swift runtime in and
        // exports only lv2_descriptor, so the bundle runs where no Swift is installed.
        .target(
            name: "TrellisLV2Plugin", dependencies: ["CLV2", "CTrellisShim", "TrellisCore", "TrellisPlugins", "TrellisSampler"],
            exclude: ["exports.map"], swiftSettings: realtimeChecks,
            linkerSettings: [.unsafeFlags([
                "-static-stdlib", "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/TrellisLV2Plugin/exports.map",
            ])]),
        // Audio files through libsndfile.
        .target(name: "TrellisAudioFile", dependencies: ["TrellisCore", "CSndfile", "CVorbisfile", "CFLAC"]),
        // Measuring sound, off the audio thread: loudness (BS.1770 / EBU R128), levels, clipping,
        // spectrum, normalizing, and pictures of a file (Cairo).
        .target(name: "TrellisAnalysis", dependencies: ["TrellisCore", "TrellisAudioFile", "CTrellisLoudness", "CCairo"]),
        // LV2 plugins through lilv: discovery, components, hosting as audio units.
        .target(name: "TrellisLV2", dependencies: ["TrellisCore", "CLilv", "CTrellisLV2Shim", "CTrellisShim"], swiftSettings: realtimeChecks),
        // File player, recorder, taps and meters: render paths plus their disk and delivery threads. No Foundation.
        // Time and pitch on Rubber Band: the stretcher the player and the time-pitch unit share.
        // Rubber Band stretchers that log nowhere (the C API cannot give them a logger).
        .target(name: "CTrellisRubberBand", dependencies: ["CRubberBand"], linkerSettings: [.linkedLibrary("rubberband"), .linkedLibrary("stdc++")]),
        .target(name: "TrellisTimePitch", dependencies: ["TrellisCore", "CRubberBand", "CTrellisRubberBand", "CTrellisShim"], swiftSettings: realtimeChecks),
        // The sampler: SoundFonts through libfluidsynth, note-named audio files through its own voices.
        .target(name: "TrellisSampler", dependencies: ["TrellisCore", "TrellisAudioFile", "CFluidSynth"], swiftSettings: realtimeChecks),
        .target(name: "TrellisMedia", dependencies: ["TrellisCore", "TrellisEngine", "TrellisUnits", "TrellisAudioFile", "TrellisSampler", "TrellisTimePitch", "CTrellisShim"], swiftSettings: realtimeChecks),
        // The graph model and its compiler (control side).
        .target(name: "TrellisGraph", dependencies: ["TrellisCore", "TrellisEngine", "TrellisUnits", "TrellisAudioFile"], swiftSettings: realtimeChecks),
        // The JACK head node: a JACK client that pulls a render source live. No Foundation.
        .target(name: "TrellisJACK", dependencies: ["TrellisCore", "CJack", "CTrellisShim", "CTrellisJACKShim"], swiftSettings: jackRealtimeChecks),
        // The offline backend: files in, a file out, as fast as the machine allows.
        .target(name: "TrellisOffline", dependencies: ["TrellisCore", "TrellisEngine", "TrellisUnits", "TrellisGraph", "TrellisAudioFile"]),
        // Session files: YAML in, a graph out, and back.
        .target(name: "TrellisSession", dependencies: ["TrellisCore", "TrellisEngine", "TrellisGraph", "TrellisUnits", "TrellisMedia", "TrellisAudioFile", .product(name: "Yams", package: "Yams")], swiftSettings: realtimeChecks),
        // A session live on JACK.
        .target(name: "TrellisLive", dependencies: ["TrellisCore", "TrellisGraph", "TrellisJACK", "TrellisSession"]),
        // The control plane: a line protocol on a socket, OSC, one dispatcher for both.
        .target(name: "TrellisControl", dependencies: ["TrellisCore", "TrellisEngine", "TrellisGraph", "TrellisUnits", "TrellisSession", "TrellisMedia", "TrellisAudioFile", "TrellisAnalysis", "TrellisChain", "CLiblo"]),
        // The web desk: a page served by the session, speaking the control protocol over a WebSocket.
        .target(
            name: "TrellisWeb",
            dependencies: [
                "TrellisControl", "TrellisCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.embedInCode("Assets")]),
        // Chains and renders as the command line and the C interface run them: the pipeline,
        // the registry of every unit, the graph a chain builds, buffers processed in memory.
        .target(
            name: "TrellisChain",
            dependencies: ["TrellisCore", "TrellisEngine", "TrellisUnits", "TrellisGraph", "TrellisOffline", "TrellisAudioFile", "TrellisMedia", "TrellisSession", "TrellisLV2"]),
        // AVFAudio's classes (AVAudioFormat, AVAudioPCMBuffer, AVAudioFile, AVAudioTime...) on Trellis' engine.
        .target(name: "TrellisAV", dependencies: ["TrellisCore", "TrellisEngine", "TrellisUnits", "TrellisGraph", "TrellisAudioFile", "TrellisMedia", "TrellisTimePitch", "TrellisChain", "TrellisJACK", "TrellisSampler"],
            swiftSettings: realtimeChecks),
        // The C interface: only its `trellis_` symbols exported, the Swift runtime linked in.
        .target(
            name: "TrellisC", dependencies: ["TrellisChain", "TrellisCore", "TrellisAudioFile", "TrellisGraph", "TrellisOffline"],
            exclude: ["exports.map"],
            linkerSettings: [.unsafeFlags([
                "-static-stdlib", "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/TrellisC/exports.map", "-Xlinker", "-soname=libtrellis.so",
                // Foundation's own parts, which -static-stdlib links for programs but not for libraries.
                "-lFoundationInternationalization", "-lFoundationEssentials", "-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCollections",
                "-l_FoundationCShims", "-ldispatch", "-lBlocksRuntime",
            ])]),
        // A client of a session manager (NSM API 1.1.2) over OSC.
        .target(name: "TrellisNSM", dependencies: ["TrellisControl"]),
        // Saves a big session in a loop until killed: the crash-safety test's subject.
        .executableTarget(name: "SessionSaveLoop", dependencies: ["TrellisSession", "TrellisUnits", "TrellisCore"]),
        .executableTarget(
            name: "TrellisCLI",
            dependencies: [
                "TrellisCore", "TrellisEngine", "TrellisUnits", "TrellisGraph", "TrellisOffline", "TrellisAudioFile", "TrellisAnalysis", "TrellisLV2", "TrellisJACK", "TrellisSession", "TrellisLive", "TrellisMedia", "TrellisControl", "TrellisNSM", "TrellisPlugins", "TrellisWeb", "TrellisChain",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // What test targets share: turns for the suites that run a JACK server.
        .target(name: "TrellisTestSupport", dependencies: ["TrellisCore"], path: "Tests/TrellisTestSupport"),
        .testTarget(name: "TrellisCoreTests", dependencies: ["TrellisCore", "TrellisUnits"]),
        .testTarget(name: "TrellisAnalysisTests", dependencies: ["TrellisTestSupport", "TrellisAnalysis", "TrellisAudioFile", "TrellisCore", "CEBUR128"]),
        .testTarget(name: "TrellisAudioFileTests", dependencies: ["TrellisAudioFile", "TrellisCore", "CSndfile", "CAllocationCounter"]),
        .testTarget(name: "TrellisTimePitchTests", dependencies: ["TrellisTestSupport", "TrellisTimePitch", "TrellisAudioFile", "TrellisCore", "CAllocationCounter"]),
        .testTarget(name: "TrellisSamplerTests", dependencies: ["TrellisTestSupport", "TrellisSampler", "TrellisCore", "TrellisAudioFile", "CAllocationCounter"]),
        .testTarget(name: "TrellisUnitsTests", dependencies: ["TrellisUnits", "TrellisCore", "CAllocationCounter"]),
        .testTarget(name: "TrellisGraphTests", dependencies: ["TrellisGraph", "TrellisOffline", "TrellisEngine", "TrellisUnits", "TrellisCore", "TrellisAudioFile", "CAllocationCounter"]),
        .testTarget(name: "TrellisLV2Tests", dependencies: ["TrellisTestSupport", "TrellisLV2", "TrellisOffline", "CTrellisLV2Shim", "CLV2", "TrellisSampler", "TrellisCore", "TrellisEngine", "TrellisGraph", "TrellisUnits", "TrellisPlugins", "CAllocationCounter", "CSndfile"]),
        .testTarget(name: "TrellisJACKTests", dependencies: ["TrellisTestSupport", "TrellisJACK", "TrellisOffline", "CTrellisJACKShim", "TrellisCore", "TrellisGraph", "TrellisUnits", "TrellisEngine", "TrellisLV2", "TrellisMedia", "TrellisAudioFile", "CAllocationCounter"]),
        .testTarget(name: "TrellisCLITests", dependencies: ["TrellisTestSupport", "TrellisCLI", "TrellisPlugins", "TrellisCore"]),
        .testTarget(name: "TrellisControlTests", dependencies: ["TrellisTestSupport", "TrellisControl", "TrellisOffline", "TrellisLive", "TrellisMedia", "TrellisSession", "TrellisGraph", "TrellisEngine", "TrellisJACK", "TrellisLV2", "TrellisUnits", "TrellisCore", "TrellisAudioFile", "TrellisCLI", "TrellisChain"], exclude: ["PipeWire/headless.conf"]),
        .testTarget(name: "TrellisSessionTests", dependencies: ["TrellisSession", "TrellisOffline", "TrellisGraph", "TrellisEngine", "TrellisUnits", "TrellisMedia", "TrellisSampler", "TrellisLV2", "TrellisAudioFile", "TrellisCore", "SessionSaveLoop", "TrellisCLI"]),
        .testTarget(name: "TrellisAVTests", dependencies: ["TrellisTestSupport", "TrellisAV", "TrellisCLI", "TrellisJACK", "TrellisCore", "CAllocationCounter"]),
        .testTarget(name: "TrellisMediaTests", dependencies: ["TrellisTestSupport", "TrellisMedia", "TrellisGraph", "TrellisUnits", "TrellisAudioFile", "TrellisCore", "TrellisEngine", "CAllocationCounter"]),
    ]
)
