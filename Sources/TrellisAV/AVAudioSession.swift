import Foundation
import TrellisJACK

public let AVAudioSessionInterruptionTypeKey = "AVAudioSessionInterruptionTypeKey"
public let AVAudioSessionInterruptionOptionKey = "AVAudioSessionInterruptionOptionKey"
public let AVAudioSessionRouteChangeReasonKey = "AVAudioSessionRouteChangeReasonKey"

extension Notification.Name {
    /// Posted (object: the engine) when a live engine's JACK rate or period changes, or
    /// its server comes back after going away.
    public static let AVAudioEngineConfigurationChange = Notification.Name("AVAudioEngineConfigurationChangeNotification")
}

/// The part of AVFAudio's audio session that means something on Linux, as its
/// `AVAudioSession`: the JACK server is the device. `setActive(true)` starts the
/// engine that `AVAudioPlayer` and `AVAudioRecorder` share (a JACK client); the rate and
/// period are the server's; the server going away and coming back are interruptions,
/// and a connection made or broken on the client's ports is a route change.
/// Categories, modes and preferences are kept and read back; JACK decides the rest.
public final class AVAudioSession: @unchecked Sendable {
    public struct Category: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let ambient = Category(rawValue: "AVAudioSessionCategoryAmbient")
        public static let soloAmbient = Category(rawValue: "AVAudioSessionCategorySoloAmbient")
        public static let playback = Category(rawValue: "AVAudioSessionCategoryPlayback")
        public static let record = Category(rawValue: "AVAudioSessionCategoryRecord")
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
        public static let multiRoute = Category(rawValue: "AVAudioSessionCategoryMultiRoute")
    }

    public struct Mode: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
        public static let measurement = Mode(rawValue: "AVAudioSessionModeMeasurement")
        public static let moviePlayback = Mode(rawValue: "AVAudioSessionModeMoviePlayback")
        public static let spokenAudio = Mode(rawValue: "AVAudioSessionModeSpokenAudio")
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
    }

    public struct CategoryOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
    }

    public struct SetActiveOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    public enum InterruptionType: UInt, Sendable {
        case began = 1
        case ended = 0
    }

    public struct InterruptionOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let shouldResume = InterruptionOptions(rawValue: 1)
    }

    public enum RouteChangeReason: UInt, Sendable {
        case unknown = 0, newDeviceAvailable = 1, oldDeviceUnavailable = 2, categoryChange = 3, override = 4, wakeFromSleep = 6,
             noSuitableRouteForCategory = 7, routeConfigurationChange = 8
    }

    public static let interruptionNotification = Notification.Name("AVAudioSessionInterruptionNotification")
    public static let routeChangeNotification = Notification.Name("AVAudioSessionRouteChangeNotification")

    private static let shared = AVAudioSession()
    public static func sharedInstance() -> AVAudioSession { shared }

    private let lock = NSLock()
    private var kept: (category: Category, mode: Mode, options: CategoryOptions) = (.soloAmbient, .default, [])
    private var preferred: (rate: Double, duration: Double) = (0, 0)

    public var category: Category { lock.withLock { kept.category } }
    public var mode: Mode { lock.withLock { kept.mode } }
    public var categoryOptions: CategoryOptions { lock.withLock { kept.options } }

    public func setCategory(_ category: Category, mode: Mode = .default, options: CategoryOptions = []) throws {
        lock.withLock { kept = (category, mode, options) }
    }

    public func setCategory(_ category: Category) throws { try setCategory(category, mode: .default, options: []) }
    public func setMode(_ mode: Mode) throws { lock.withLock { kept.mode = mode } }

    /// Active: the shared engine runs as a JACK client (with capture ports for the
    /// record categories). Inactive: it stops, and the players and recorders on it with it.
    public func setActive(_ active: Bool, options: SetActiveOptions = []) throws {
        if active {
            try SharedPlayback.shared.activate(recording: [.record, .playAndRecord, .multiRoute].contains(category))
        } else {
            SharedPlayback.shared.deactivate()
        }
    }

    /// JACK's rate decides; the preference is kept.
    public func setPreferredSampleRate(_ sampleRate: Double) throws { lock.withLock { preferred.rate = sampleRate } }
    public var preferredSampleRate: Double { lock.withLock { preferred.rate } }
    /// JACK's period decides; the preference is kept.
    public func setPreferredIOBufferDuration(_ duration: Double) throws { lock.withLock { preferred.duration = duration } }
    public var preferredIOBufferDuration: Double { lock.withLock { preferred.duration } }

    /// The server's rate while active.
    public var sampleRate: Double { SharedPlayback.shared.liveSettings?.sampleRate ?? 0 }
    /// The server's period in seconds while active.
    public var ioBufferDuration: Double {
        SharedPlayback.shared.liveSettings.map { Double($0.maximumFrames) / $0.sampleRate } ?? 0
    }
    public var outputNumberOfChannels: Int { SharedPlayback.shared.channels.output }
    public var inputNumberOfChannels: Int { SharedPlayback.shared.channels.input }
    public var maximumOutputNumberOfChannels: Int { outputNumberOfChannels }
    public var maximumInputNumberOfChannels: Int { inputNumberOfChannels }
    public var isInputAvailable: Bool { true }
    /// Seconds from a sample given to JACK to the device: one period on JACK's two-period default.
    public var outputLatency: Double { ioBufferDuration }
    public var inputLatency: Double { ioBufferDuration }

    /// What the head node reported, as the session's and the engine's notifications.
    static func post(_ event: JACKEvent, engine: AVAudioEngine) {
        let center = NotificationCenter.default
        switch event {
        case .interruptionBegan:
            center.post(name: interruptionNotification, object: shared, userInfo: [AVAudioSessionInterruptionTypeKey: InterruptionType.began.rawValue])
        case .interruptionEnded:
            center.post(name: interruptionNotification, object: shared, userInfo: [
                AVAudioSessionInterruptionTypeKey: InterruptionType.ended.rawValue,
                AVAudioSessionInterruptionOptionKey: InterruptionOptions.shouldResume.rawValue,
            ])
            center.post(name: .AVAudioEngineConfigurationChange, object: engine)
        case .routeChanged(let change):
            let reason: RouteChangeReason = change.connected ? .newDeviceAvailable : .oldDeviceUnavailable
            center.post(name: routeChangeNotification, object: shared, userInfo: [AVAudioSessionRouteChangeReasonKey: reason.rawValue])
        case .bufferSizeChanged, .sampleRateChanged:
            center.post(name: .AVAudioEngineConfigurationChange, object: engine)
        default:
            break
        }
    }
}
