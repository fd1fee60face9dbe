import TrellisChain
import TrellisCore

/// Core Audio's description of a component, as AudioToolbox spells it.
public struct AudioComponentDescription: Hashable, Sendable {
    public var componentType: UInt32
    public var componentSubType: UInt32
    public var componentManufacturer: UInt32
    public var componentFlags: UInt32
    public var componentFlagsMask: UInt32

    public init(componentType: UInt32, componentSubType: UInt32, componentManufacturer: UInt32, componentFlags: UInt32 = 0, componentFlagsMask: UInt32 = 0) {
        self.componentType = componentType
        self.componentSubType = componentSubType
        self.componentManufacturer = componentManufacturer
        self.componentFlags = componentFlags
        self.componentFlagsMask = componentFlagsMask
    }

    /// The description Trellis' registry answers to: Apple's manufacturer code means Trellis' built-ins.
    var trellis: ComponentDescription {
        let manufacturer = componentManufacturer == kAudioUnitManufacturer_Apple ? Manufacturer.trellis : FourCC(rawValue: componentManufacturer)
        return ComponentDescription(type: FourCC(rawValue: componentType), subtype: FourCC(rawValue: componentSubType), manufacturer: manufacturer)
    }
}

public struct AudioComponentInstantiationOptions: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let loadOutOfProcess = AudioComponentInstantiationOptions(rawValue: 1)
    public static let loadInProcess = AudioComponentInstantiationOptions(rawValue: 2)
}

/// A node around any unit Trellis knows: built-in, or an LV2 plugin (found by the
/// triple `trellis units` lists), as AVFAudio's `AVAudioUnit`.
open class AVAudioUnit: AVAudioNode, @unchecked Sendable {
    public var audioComponentDescription: AudioComponentDescription {
        let d = unit.componentDescription
        return AudioComponentDescription(componentType: d.type.rawValue, componentSubType: d.subtype.rawValue, componentManufacturer: d.manufacturer.rawValue)
    }

    public var name: String { unit.name }
    public var manufacturerName: String { unit.componentDescription.manufacturer.description }
    public var version: Int { 0 }

    /// Makes the unit `description` names; the handler is called before this returns.
    public static func instantiate(
        with description: AudioComponentDescription, options: AudioComponentInstantiationOptions = [],
        completionHandler: @escaping (AVAudioUnit?, (any Error)?) -> Void
    ) {
        do { completionHandler(try make(description), nil) } catch { completionHandler(nil, error) }
    }

    public static func instantiate(with description: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) async throws -> AVAudioUnit {
        try make(description)
    }

    static func make(_ description: AudioComponentDescription) throws(AVAudioError) -> AVAudioUnit {
        do {
            let registry = try Units.shared()
            let component = try registry.component(matching: description.trellis)
            let unit = try registry.instantiate(component)
            return unit.componentDescription.type == ComponentType.effect ? AVAudioUnitEffect(unit: unit) : AVAudioUnit(unit: unit)
        } catch let error as AVAudioError {
            throw error
        } catch {
            throw AVAudioError(.graph, "no unit \(description.trellis): \(error)")
        }
    }
}

/// A unit that processes audio in real time, with a bypass, as AVFAudio's `AVAudioUnitEffect`.
open class AVAudioUnitEffect: AVAudioUnit, @unchecked Sendable {
    public var bypass: Bool {
        get { (try? unit.property(.bypassEffect, scope: .global, element: 0)) == .bool(true) }
        set { try? unit.setProperty(.bypassEffect, .bool(newValue), scope: .global, element: 0) }
    }
}

/// A unit that changes time (rate, pitch), as AVFAudio's `AVAudioUnitTimeEffect`.
open class AVAudioUnitTimeEffect: AVAudioUnit, @unchecked Sendable {
    public var bypass: Bool {
        get { (try? unit.property(.bypassEffect, scope: .global, element: 0)) == .bool(true) }
        set { try? unit.setProperty(.bypassEffect, .bool(newValue), scope: .global, element: 0) }
    }
}
