import CLV2
import Foundation
import Testing
import TrellisCore
import TrellisPlugins
import TrellisSampler
import TrellisTestSupport

/// A host written from the LV2 specifications (core, urid, atom, patch, worker, state)
/// for what Trellis' own host does not send, a `patch:Set` of a path. Its worker runs
/// each request at once inside `schedule_work`, as an offline host's does, and hands the
/// responses to the plugin after `run`. 256-frame blocks, stereo out.
private final class ProtocolHost {
    static let frames = 256
    private(set) var uris: [String] = []
    private var responses: [[UInt8]] = []
    private var descriptor: UnsafePointer<LV2_Descriptor>?
    private var handle: LV2_Handle?
    private let map = UnsafeMutablePointer<LV2_URID_Map>.allocate(capacity: 1)
    private let schedule = UnsafeMutablePointer<LV2_Worker_Schedule>.allocate(capacity: 1)
    private let features = UnsafeMutablePointer<LV2_Feature>.allocate(capacity: 2)
    private let featureList = UnsafeMutablePointer<UnsafePointer<LV2_Feature>?>.allocate(capacity: 3)
    private let names = [strdup("http://lv2plug.in/ns/ext/urid#map")!, strdup("http://lv2plug.in/ns/ext/worker#schedule")!]
    private let left = UnsafeMutablePointer<Float>.allocate(capacity: frames)
    private let right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
    private let controls: UnsafeMutablePointer<Float>
    private let sequence = UnsafeMutableRawPointer.allocate(byteCount: 8192, alignment: 8)

    init(plugin: ExportedPlugin) throws {
        let ports = plugin.ports(of: try plugin.makeUnit(sampleRate: 48_000, maximumFrames: ExportedPlugin.sliceFrames))
        controls = .allocate(capacity: ports.count)
        let me = Unmanaged.passUnretained(self).toOpaque()
        map.initialize(to: LV2_URID_Map(handle: me, map: { handle, uri in
            Unmanaged<ProtocolHost>.fromOpaque(handle!).takeUnretainedValue().urid(String(cString: uri!))
        }))
        schedule.initialize(to: LV2_Worker_Schedule(handle: me, schedule_work: { handle, size, data in
            Unmanaged<ProtocolHost>.fromOpaque(handle!).takeUnretainedValue().work(size, data)
        }))
        features[0] = LV2_Feature(URI: names[0], data: UnsafeMutableRawPointer(map))
        features[1] = LV2_Feature(URI: names[1], data: UnsafeMutableRawPointer(schedule))
        featureList[0] = UnsafePointer(features)
        featureList[1] = UnsafePointer(features + 1)
        featureList[2] = nil

        let folder = try ExportedBundle.folder() + "/trellis.lv2/"
        let library = try #require(dlopen(folder + "trellis.so", RTLD_NOW))
        typealias Entry = @convention(c) (UInt32) -> UnsafePointer<LV2_Descriptor>?
        let entry = unsafeBitCast(try #require(dlsym(library, "lv2_descriptor")), to: Entry.self)
        var index: UInt32 = 0
        while let candidate = entry(index) {
            if String(cString: candidate.pointee.URI) == plugin.uri { descriptor = candidate }
            index += 1
        }
        let descriptor = try #require(descriptor)
        handle = try #require(descriptor.pointee.instantiate(descriptor, 48_000, folder, featureList))
        clearSequence()
        for (index, port) in ports.enumerated() {
            let data: UnsafeMutableRawPointer
            switch port.role {
            case .audioOutput(_, let channel): data = UnsafeMutableRawPointer(channel == 0 ? left : right)
            case .events: data = sequence
            default:
                controls[index] = port.parameter?.defaultValue ?? 0
                data = UnsafeMutableRawPointer(controls + index)
            }
            descriptor.pointee.connect_port(handle, UInt32(index), data)
        }
        descriptor.pointee.activate(handle)
    }

    deinit {
        if let descriptor, let handle { descriptor.pointee.cleanup(handle) }
        for name in names { free(name) }
        map.deallocate()
        schedule.deallocate()
        features.deallocate()
        featureList.deallocate()
        left.deallocate()
        right.deallocate()
        controls.deallocate()
        sequence.deallocate()
    }

    func urid(_ uri: String) -> LV2_URID {
        if let index = uris.firstIndex(of: uri) { return LV2_URID(index + 1) }
        uris.append(uri)
        return LV2_URID(uris.count)
    }

    private func interface<T>(_ uri: String, as: T.Type) -> UnsafePointer<T>? {
        descriptor?.pointee.extension_data(uri)?.assumingMemoryBound(to: T.self)
    }

    private func work(_ size: UInt32, _ data: UnsafeRawPointer?) -> LV2_Worker_Status {
        guard let worker = interface("http://lv2plug.in/ns/ext/worker#interface", as: LV2_Worker_Interface.self) else { return LV2_WORKER_ERR_UNKNOWN }
        let me = Unmanaged.passUnretained(self).toOpaque()
        return worker.pointee.work(handle, { respondHandle, size, data in
            let host = Unmanaged<ProtocolHost>.fromOpaque(respondHandle!).takeUnretainedValue()
            host.responses.append(Array(UnsafeRawBufferPointer(start: data, count: Int(size))))
            return LV2_WORKER_SUCCESS
        }, me, size, data)
    }

    // MARK: The atom sequence the next `run` reads

    private func clearSequence() {
        sequence.storeBytes(of: 8, as: UInt32.self)
        sequence.storeBytes(of: urid("http://lv2plug.in/ns/ext/atom#Sequence"), toByteOffset: 4, as: UInt32.self)
        sequence.storeBytes(of: 0, toByteOffset: 8, as: UInt64.self)
    }

    private func append(frame: Int64, type: String, body: [UInt8]) {
        let end = 8 + Int(sequence.load(as: UInt32.self))
        sequence.storeBytes(of: frame, toByteOffset: end, as: Int64.self)
        sequence.storeBytes(of: UInt32(body.count), toByteOffset: end + 8, as: UInt32.self)
        sequence.storeBytes(of: urid(type), toByteOffset: end + 12, as: UInt32.self)
        let padded = (body.count + 7) & ~7
        for index in 0..<padded { sequence.storeBytes(of: index < body.count ? body[index] : 0, toByteOffset: end + 16 + index, as: UInt8.self) }
        sequence.storeBytes(of: UInt32(end - 8 + 16 + padded), as: UInt32.self)
    }

    func midi(_ bytes: [UInt8], at frame: Int64 = 0) {
        append(frame: frame, type: "http://lv2plug.in/ns/ext/midi#MidiEvent", body: bytes)
    }

    /// `patch:Set` of `property` to an `atom:Path`: an object with two properties.
    func patchSet(_ property: String, path: String) {
        func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        let text = Array(path.utf8) + [0]
        var body = word(0) + word(urid("http://lv2plug.in/ns/ext/patch#Set"))
        body += word(urid("http://lv2plug.in/ns/ext/patch#property")) + word(0)
        body += word(4) + word(urid("http://lv2plug.in/ns/ext/atom#URID")) + word(urid(property)) + word(0)
        body += word(urid("http://lv2plug.in/ns/ext/patch#value")) + word(0)
        body += word(UInt32(text.count)) + word(urid("http://lv2plug.in/ns/ext/atom#Path"))
        body += text + Array(repeating: 0, count: (text.count + 7) / 8 * 8 - text.count)
        append(frame: 0, type: "http://lv2plug.in/ns/ext/atom#Object", body: body)
    }

    /// One block: the sequence as written, then the worker's responses; the left channel.
    func run() -> [Float] {
        guard let descriptor, let handle else { return [] }
        descriptor.pointee.run(handle, UInt32(Self.frames))
        clearSequence()
        let worker = interface("http://lv2plug.in/ns/ext/worker#interface", as: LV2_Worker_Interface.self)
        while !responses.isEmpty {
            let response = responses.removeFirst()
            _ = response.withUnsafeBytes { worker?.pointee.work_response(handle, UInt32($0.count), $0.baseAddress) }
        }
        return Array(UnsafeBufferPointer(start: left, count: Self.frames))
    }

    /// What `save` stored and `restore` retrieves: URIs and bytes.
    final class SavedState {
        let host: ProtocolHost
        var values: [String: (type: String, bytes: [UInt8])] = [:]
        init(host: ProtocolHost) { self.host = host }
    }

    func saveState() -> SavedState {
        let saved = SavedState(host: self)
        guard let state = interface("http://lv2plug.in/ns/ext/state#interface", as: LV2_State_Interface.self) else { return saved }
        _ = state.pointee.save(handle, { context, key, value, size, type, _ in
            let saved = Unmanaged<SavedState>.fromOpaque(context!).takeUnretainedValue()
            saved.values[saved.host.uris[Int(key) - 1]] = (saved.host.uris[Int(type) - 1], Array(UnsafeRawBufferPointer(start: value, count: size)))
            return LV2_STATE_SUCCESS
        }, Unmanaged.passUnretained(saved).toOpaque(), 0, nil)
        return saved
    }

    /// Restores `saved` (made by any host instance: keys travel as URIs).
    func restoreState(_ saved: SavedState) -> LV2_State_Status {
        guard let state = interface("http://lv2plug.in/ns/ext/state#interface", as: LV2_State_Interface.self) else { return LV2_STATE_ERR_UNKNOWN }
        let translated = SavedState(host: self)
        translated.values = saved.values
        return state.pointee.restore(handle, { context, key, size, type, flags in
            let saved = Unmanaged<SavedState>.fromOpaque(context!).takeUnretainedValue()
            guard let entry = saved.values[saved.host.uris[Int(key) - 1]] else { return nil }
            size?.pointee = entry.bytes.count
            type?.pointee = saved.host.urid(entry.type)
            flags?.pointee = LV2_STATE_IS_POD.rawValue | LV2_STATE_IS_PORTABLE.rawValue
            return entry.bytes.withUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
        }, Unmanaged.passUnretained(translated).toOpaque(), 0, nil)
    }
}

/// The built-in sampler, played as the host plays the plugin: 256-frame blocks, MIDI at
/// a block's start; the left channel.
private func builtIn(bank: String?, blocks: Int, messages: [Int: [UInt8]]) throws -> [Float] {
    let unit = Sampler()
    try unit.setSampleRate(48_000)
    try unit.setMaximumFramesPerSlice(ExportedPlugin.sliceFrames)
    if let bank { try unit.loadContent(path: bank) }
    try unit.initialize()
    let outputs = AudioBufferList(channelCounts: [2], frameCapacity: ProtocolHost.frames)
    var left: [Float] = []
    for block in 0..<blocks {
        let events = messages[block].map { [RenderEvent.midi(status: $0[0], data1: $0[1], data2: $0[2], length: 3, bus: 0, offset: 0)] } ?? []
        events.withUnsafeBufferPointer { list in
            let context = RenderContext(frameCount: ProtocolHost.frames, timeStamp: AudioTimeStamp(sampleTime: Int64(block * ProtocolHost.frames)),
                                        inputs: BusBuffers(buses: nil, count: 0), outputs: outputs.buses,
                                        events: RenderEventList(base: list.baseAddress, count: list.count))
            _ = unit.render(context)
        }
        left += outputs.samples(bus: 0, channel: 0, frameCount: ProtocolHost.frames)
    }
    return left
}

@Suite("The sampler plugin's bank, through the LV2 protocol")
struct ExportedSamplerProtocolTests {
    static let plugin = ExportedPlugins.plugin(uri: ExportedPlugin.uriBase + "sampler")!
    static let bankURI = ExportedPlugin.uriBase + "sampler#bank"

    /// A folder with one file, `A4.wav`: a second of 440 Hz, fading out.
    static func bank() throws -> String {
        let folder = NSTemporaryDirectory() + "trellis-exported-bank-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: folder + "/A4.wav") {
            let status = try runCapped("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", folder + "/A4.wav", "synth", "1", "sine", "440", "fade", "0", "1", "0.2"], addressSpace: 4 << 30, deadline: 60).status
            #expect(status == 0)
        }
        return folder
    }

    /// Plays note 72 for 40 blocks from the block after `setUp`.
    fileprivate static func playNote(_ host: ProtocolHost) -> [Float] {
        host.midi([0x90, 72, 100])
        return (0..<40).flatMap { _ in host.run() }
    }

    @Test("a patch:Set of the bank loads it on the worker; the next block plays it, repitched as the built-in sampler does")
    func patchSetLoadsTheBank() throws {
        let bank = try Self.bank()
        let host = try ProtocolHost(plugin: Self.plugin)
        host.patchSet(Self.bankURI, path: bank)
        _ = host.run()
        let played = Self.playNote(host)
        #expect(played == (try builtIn(bank: bank, blocks: 40, messages: [0: [0x90, 72, 100]])))
        #expect(played != (try builtIn(bank: nil, blocks: 40, messages: [0: [0x90, 72, 100]])))
        #expect(abs(peakHertz(played[2_000..<9_000], low: 400, high: 700) - 523.25) < 0.5)
    }

    @Test("a bank that cannot be read leaves the plugin playing what it played")
    func unreadableBankChangesNothing() throws {
        let host = try ProtocolHost(plugin: Self.plugin)
        host.patchSet(Self.bankURI, path: "/nonexistent/bank.sf2")
        _ = host.run()
        #expect(Self.playNote(host) == (try builtIn(bank: nil, blocks: 40, messages: [0: [0x90, 72, 100]])))
        #expect(host.saveState().values.isEmpty)
    }

    @Test("the state saves the bank as an atom:Path, and a new instance restored from it plays that bank")
    func stateCarriesTheBank() throws {
        let bank = try Self.bank()
        let first = try ProtocolHost(plugin: Self.plugin)
        first.patchSet(Self.bankURI, path: bank)
        _ = first.run()
        let saved = first.saveState()
        let entry = try #require(saved.values[Self.bankURI])
        #expect(entry.type == "http://lv2plug.in/ns/ext/atom#Path")
        #expect(String(decoding: entry.bytes.prefix { $0 != 0 }, as: UTF8.self) == bank)

        let second = try ProtocolHost(plugin: Self.plugin)
        #expect(second.restoreState(saved) == LV2_STATE_SUCCESS)
        #expect(Self.playNote(second) == (try builtIn(bank: bank, blocks: 40, messages: [0: [0x90, 72, 100]])))
    }
}
