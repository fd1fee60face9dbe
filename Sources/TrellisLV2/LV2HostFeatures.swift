import CLilv
import CTrellisLV2Shim
import CTrellisShim
import Glibc
import Synchronization
import TrellisCore

/// The host features one plugin instance is given, and the memory behind them, which
/// lives as long as the instance: URID map/unmap, options (sample rate, block lengths,
/// sequence size), bounded block length, worker schedule, log, and the state path
/// features (makePath, mapPath, freePath) rooted in a per-instance directory.
///
/// Thread: made and freed on the control thread; plugins call the features from
/// whatever thread LV2 allows.
final class LV2HostFeatures: @unchecked Sendable {
    /// Every feature URI Trellis can give a plugin.
    static let supported: Set<String> = [
        LV2URI.uridMap, LV2URI.uridUnmap, LV2URI.options, LV2URI.boundedBlockLength,
        LV2URI.workerSchedule, LV2URI.log, LV2URI.makePath, LV2URI.mapPath, LV2URI.freePath,
        LV2URI.loadDefaultState,
    ]

    private let pluginURI: String
    private weak var world: LV2World?
    /// Where files the plugin makes with `makePath` go.
    let directory: String
    private let memory = Arena()
    private let options: UnsafeMutablePointer<LV2_Options_Option>
    private let optionValues: UnsafeMutablePointer<Int32>
    private let sampleRateValue: UnsafeMutablePointer<Float>
    private let log: UnsafeMutablePointer<TrellisLV2Log>
    private let makePath: UnsafeMutablePointer<LV2_State_Make_Path>
    private let mapPath: UnsafeMutablePointer<LV2_State_Map_Path>
    private let freePath: UnsafeMutablePointer<LV2_State_Free_Path>
    /// Null-terminated feature list for instantiation.
    private(set) var instantiation: UnsafeMutablePointer<UnsafePointer<LV2_Feature>?>!
    /// Null-terminated feature list for state save and restore: lilv adds its own path
    /// features there, which resolve paths against the state, so ours are left out.
    private(set) var state: UnsafeMutablePointer<UnsafePointer<LV2_Feature>?>!

    /// Lines the plugin logs while it runs, each a level byte then the text: the audio
    /// thread's wait in a ring (no lock or I/O there), other threads' in a bounded
    /// queue, until the finish service takes them (`drainLog`).
    private let audioLog = ByteRing(capacity: 1 << 14)
    private let audioLogReader: Mutex<UnsafeMutableRawPointer>
    private let otherLog = Mutex<[(UnitMessage.LogLevel, String)]>([])
    private let droppedLines = Atomic<Int>(0)
    /// From activation to deactivation: lines logged off the audio thread meanwhile
    /// wait for the finish service; before and after they go straight to the world.
    let running = Atomic<Bool>(false)
    private let levelURIDs: (error: LV2_URID, warning: LV2_URID, trace: LV2_URID)

    static let queuedLineLimit = 256

    init(
        world: LV2World, pluginURI: String, unitID: UInt64, sampleRate: Double,
        maximumFrames: Int, sequenceSize: Int, worker: LV2Worker?
    ) {
        self.pluginURI = pluginURI
        self.world = world
        directory = FileSystem.temporaryDirectory + "/trellis-lv2/\(getpid())-\(unitID)"
        let urids = world.urids
        levelURIDs = (urids.map(LV2URI.logError), urids.map(LV2URI.logWarning), urids.map(LV2URI.logTrace))

        audioLogReader = Mutex(memory.takeBytes(1024, alignment: 8))
        optionValues = memory.copy([1, Int32(maximumFrames), Int32(sequenceSize)])
        sampleRateValue = memory.take(1, repeating: Float(sampleRate))
        options = memory.take(6)
        let intType = urids.map(LV2URI.atomInt), floatType = urids.map(LV2URI.atomFloat)
        func option(_ key: String, _ type: LV2_URID, _ value: UnsafeRawPointer) -> LV2_Options_Option {
            LV2_Options_Option(context: LV2_OPTIONS_INSTANCE, subject: 0, key: urids.map(key), size: 4, type: type, value: value)
        }
        options[0] = option(LV2URI.minBlockLength, intType, optionValues)
        options[1] = option(LV2URI.maxBlockLength, intType, optionValues + 1)
        options[2] = option(LV2URI.nominalBlockLength, intType, optionValues + 1)
        options[3] = option(LV2URI.sequenceSize, intType, optionValues + 2)
        options[4] = option(LV2URI.paramSampleRate, floatType, sampleRateValue)
        options[5] = LV2_Options_Option(context: LV2_OPTIONS_INSTANCE, subject: 0, key: 0, size: 0, type: 0, value: nil)

        log = memory.take(1)
        makePath = memory.take(1)
        mapPath = memory.take(1)
        freePath = memory.take(1)
        let handle = Unmanaged.passUnretained(self).toOpaque()
        trellis_lv2_log_init(log, { context, type, message in
            guard let context, let message else { return }
            Unmanaged<LV2HostFeatures>.fromOpaque(context).takeUnretainedValue().received(type: type, message: message)
        }, handle)
        makePath.initialize(to: LV2_State_Make_Path(handle: handle, path: { handle, path in
            guard let handle, let path else { return nil }
            return Unmanaged<LV2HostFeatures>.fromOpaque(handle).takeUnretainedValue().make(path: String(cString: path))
        }))
        mapPath.initialize(to: LV2_State_Map_Path(
            handle: handle,
            abstract_path: { _, path in path.map { strdup($0) } ?? nil },
            absolute_path: { handle, path in
                guard let handle, let path else { return nil }
                let features = Unmanaged<LV2HostFeatures>.fromOpaque(handle).takeUnretainedValue()
                let text = String(cString: path)
                return strdup(text.hasPrefix("/") ? text : features.directory + "/" + text)
            }))
        freePath.initialize(to: LV2_State_Free_Path(handle: handle, free_path: { _, path in free(path) }))

        var full: [(String, UnsafeMutableRawPointer?)] = [
            (LV2URI.uridMap, UnsafeMutableRawPointer(urids.mapFeature)),
            (LV2URI.uridUnmap, UnsafeMutableRawPointer(urids.unmapFeature)),
            (LV2URI.options, UnsafeMutableRawPointer(options)),
            (LV2URI.boundedBlockLength, nil),
            (LV2URI.log, UnsafeMutableRawPointer(log)),
        ]
        if let worker { full.append((LV2URI.workerSchedule, UnsafeMutableRawPointer(worker.scheduleFeature))) }
        let stateOnly = full
        full += [
            (LV2URI.makePath, UnsafeMutableRawPointer(makePath)),
            (LV2URI.mapPath, UnsafeMutableRawPointer(mapPath)),
            (LV2URI.freePath, UnsafeMutableRawPointer(freePath)),
            (LV2URI.loadDefaultState, nil),
        ]
        instantiation = list(full)
        state = list(stateOnly)
    }

    private func list(_ entries: [(String, UnsafeMutableRawPointer?)]) -> UnsafeMutablePointer<UnsafePointer<LV2_Feature>?> {
        let list: UnsafeMutablePointer<UnsafePointer<LV2_Feature>?> = memory.take(entries.count + 1)
        for (index, (uri, data)) in entries.enumerated() {
            let name = memory.copy(Array(uri.utf8CString))
            list[index] = UnsafePointer(memory.place(LV2_Feature(URI: name, data: data)))
        }
        list[entries.count] = nil
        return list
    }

    /// `makePath`: an absolute path for a file the plugin wants to write, under the
    /// instance's directory (made on demand). The plugin frees the result.
    private func make(path: String) -> UnsafeMutablePointer<CChar>? {
        let full = directory + "/" + path
        if let slash = full.lastIndex(of: "/") { FileSystem.makeDirectories(String(full[..<slash])) }
        return strdup(full)
    }

    /// A log line from the plugin. On the audio thread it waits in a ring (no I/O
    /// there); while the plugin runs, lines from other threads (its worker) queue for
    /// the finish service too; otherwise they go straight to the world's handler.
    private func received(type: UInt32, message: UnsafePointer<CChar>) {
        let level = level(of: type)
        if trellis_is_audio_thread() != 0 {
            let written = audioLog.write(header: level.code, message, count: min(strlen(message), 1000))
            if !written { droppedLines.add(1, ordering: .relaxed) }
            return
        }
        let text = String(cString: message)
        if running.load(ordering: .acquiring) {
            let queued = otherLog.withLock { lines in
                guard lines.count < Self.queuedLineLimit else { return false }
                lines.append((level, text))
                return true
            }
            if queued { return }
            droppedLines.add(1, ordering: .relaxed)
            return
        }
        deliver(level: level, text: text)
    }

    /// Takes the lines logged while the plugin ran, audio thread's first, and returns
    /// how many were dropped because a queue was full. Thread: any but audio, one at a time.
    func drainLog(_ deliver: (UnitMessage.LogLevel, String) -> Void) -> Int {
        audioLogReader.withLock { buffer in
            while let size = audioLog.read(into: buffer, capacity: 1024) {
                guard size > 0 else { continue }
                let level = UnitMessage.LogLevel(code: buffer.load(as: UInt8.self))
                deliver(level, Self.trimmed(String(decoding: UnsafeRawBufferPointer(start: buffer + 1, count: size - 1), as: UTF8.self)))
            }
        }
        for (level, text) in otherLog.withLock({ lines in defer { lines.removeAll() }; return lines }) {
            deliver(level, Self.trimmed(text))
        }
        return droppedLines.exchange(0, ordering: .relaxed)
    }

    /// Sends what `drainLog` has not taken to the world's handler: for the lines of a
    /// plugin being freed. Thread: any but audio.
    func flushLog() {
        let dropped = drainLog { level, text in deliver(level: level, text: text) }
        if dropped > 0 { deliver(level: .warning, text: "\(dropped) log lines were dropped: the queue was full") }
    }

    private func level(of type: UInt32) -> UnitMessage.LogLevel {
        switch type {
        case levelURIDs.error: .error
        case levelURIDs.warning: .warning
        case levelURIDs.trace: .trace
        default: .note
        }
    }

    /// Plugins end most lines with a newline; a notice is one line.
    private static func trimmed(_ text: String) -> String {
        var text = Substring(text)
        while let last = text.last, last == "\n" || last == "\r" { text = text.dropLast() }
        return String(text)
    }

    private func deliver(level: UnitMessage.LogLevel, text: String) {
        guard let world else { return }
        let worldLevel: LV2World.LogMessage.Level =
            switch level {
            case .error: .error
            case .warning: .warning
            case .note: .note
            case .trace: .trace
            }
        world.log(LV2World.LogMessage(level: worldLevel, plugin: pluginURI, text: text))
    }
}
