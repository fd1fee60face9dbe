import TrellisCore

/// `patch:Set` and `patch:Get` written into an atom input and `patch:Set` / `patch:Put`
/// read from an atom output: how a plugin's properties (`LV2PropertyInfo`) become
/// parameters. Plain memory, allocated once with the kernel; audio-thread safe.
///
/// An object atom's body is `id, otype` (two u32) then properties, each `key, context`
/// (two u32) and an atom (`size, type` then the value padded to 8 bytes).
struct PatchMessages {
    let count: Int
    /// Per property: its URID, the atom type its value is written as, the parameter.
    private let keys: UnsafeMutablePointer<UInt32>
    private let types: UnsafeMutablePointer<UInt32>
    let parameters: UnsafeMutablePointer<Int32>
    private let pending: UnsafeMutablePointer<Float>
    private let dirty: UnsafeMutablePointer<Bool>
    /// Set when the plugin's values should be asked for (after instantiation, after a
    /// state was restored).
    private let askAll: UnsafeMutablePointer<Bool>
    private let scratch: UnsafeMutableRawPointer
    private let uris: URIs

    struct URIs {
        var object, blank, resource, urid, int, long, float, double, bool: UInt32
        var set, get, put, property, value, body: UInt32

        init(_ urids: URIDMap) {
            object = urids.map(LV2URI.atomObject)
            blank = urids.map(LV2URI.atomBlank)
            resource = urids.map(LV2URI.atomResource)
            urid = urids.map(LV2URI.atomURID)
            int = urids.map(LV2URI.atomInt)
            long = urids.map(LV2URI.atomLong)
            float = urids.map(LV2URI.atomFloat)
            double = urids.map(LV2URI.atomDouble)
            bool = urids.map(LV2URI.atomBool)
            set = urids.map(LV2URI.patchSet)
            get = urids.map(LV2URI.patchGet)
            put = urids.map(LV2URI.patchPut)
            property = urids.map(LV2URI.patchProperty)
            value = urids.map(LV2URI.patchValue)
            body = urids.map(LV2URI.patchBody)
        }
    }

    /// `parameterIndices[i]` is the parameter of `properties[i]`; the tables in `memory`
    /// (the kernel's).
    init(properties: [LV2PropertyInfo], parameterIndices: [Int], urids: URIDMap, in memory: Arena) {
        uris = URIs(urids)
        count = properties.count
        keys = memory.take(count)
        types = memory.take(count)
        parameters = memory.take(count)
        pending = memory.take(count, repeating: 0)
        dirty = memory.take(count, repeating: false)
        askAll = memory.take(1, repeating: count > 0)
        scratch = UnsafeMutableRawPointer(memory.take(64, of: UInt8.self))
        for (slot, property) in properties.enumerated() {
            keys[slot] = urids.map(property.uri)
            parameters[slot] = Int32(parameterIndices[slot])
            switch property.type {
            case .int: types[slot] = uris.int
            case .long: types[slot] = uris.long
            case .double: types[slot] = uris.double
            case .bool: types[slot] = uris.bool
            default: types[slot] = uris.float
            }
        }
    }


    /// Thread: audio while rendering, else control.
    @inline(__always)
    func set(slot: Int, value: Float) {
        pending[slot] = value
        dirty[slot] = true
    }

    /// Thread: control, while the audio thread is kept out.
    func askForValues() { askAll.pointee = count > 0 }

    /// Writes a `patch:Set` for each changed property, then a `patch:Get` when values
    /// were asked for, at frame 0 of `buffer`. Thread: audio.
    @inline(__always)
    func write(into buffer: UnsafeMutableRawPointer, capacity: Int) {
        for slot in 0..<count where dirty[slot] {
            dirty[slot] = false
            let size = writeSet(slot: slot)
            _ = AtomSequence.append(buffer, capacity: capacity, frame: 0, type: uris.object, data: scratch, size: size)
        }
        if askAll.pointee {
            askAll.pointee = false
            scratch.storeBytes(of: 0, toByteOffset: 0, as: UInt32.self)
            scratch.storeBytes(of: uris.get, toByteOffset: 4, as: UInt32.self)
            _ = AtomSequence.append(buffer, capacity: capacity, frame: 0, type: uris.object, data: scratch, size: 8)
        }
    }

    /// Integers round half away from zero (truncating after the half step: `rounded()`
    /// is off limits on the audio thread).
    @inline(__always)
    private func writeSet(slot: Int) -> Int {
        let value = pending[slot]
        scratch.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
        scratch.storeBytes(of: uris.set, toByteOffset: 4, as: UInt32.self)
        scratch.storeBytes(of: uris.property, toByteOffset: 8, as: UInt32.self)
        scratch.storeBytes(of: 4, toByteOffset: 16, as: UInt32.self)
        scratch.storeBytes(of: uris.urid, toByteOffset: 20, as: UInt32.self)
        scratch.storeBytes(of: keys[slot], toByteOffset: 24, as: UInt32.self)
        scratch.storeBytes(of: uris.value, toByteOffset: 32, as: UInt32.self)
        let type = types[slot]
        scratch.storeBytes(of: type, toByteOffset: 44, as: UInt32.self)
        switch type {
        case uris.long:
            scratch.storeBytes(of: 8, toByteOffset: 40, as: UInt32.self)
            scratch.storeBytes(of: Int64(value + (value < 0 ? -0.5 : 0.5)), toByteOffset: 48, as: Int64.self)
        case uris.double:
            scratch.storeBytes(of: 8, toByteOffset: 40, as: UInt32.self)
            scratch.storeBytes(of: Double(value), toByteOffset: 48, as: Double.self)
        case uris.int, uris.bool:
            scratch.storeBytes(of: 4, toByteOffset: 40, as: UInt32.self)
            scratch.storeBytes(of: Int32(value + (value < 0 ? -0.5 : 0.5)), toByteOffset: 48, as: Int32.self)
        default:
            scratch.storeBytes(of: 4, toByteOffset: 40, as: UInt32.self)
            scratch.storeBytes(of: value, toByteOffset: 48, as: Float.self)
        }
        return 56
    }

    /// Reads a `patch:Set` or `patch:Put` the plugin sent, calling `update` with the
    /// parameter index and value of each property it names. Thread: audio.
    @inline(__always)
    func read(type: UInt32, data: UnsafeRawPointer, size: Int, _ update: (Int, Float) -> Void) {
        guard count > 0, type == uris.object || type == uris.blank || type == uris.resource, size >= 8 else { return }
        let otype = data.load(fromByteOffset: 4, as: UInt32.self)
        if otype == uris.set {
            var property: UInt32 = 0
            var value: Float?
            forEachProperty(data, size: size) { key, valueType, body, valueSize in
                if key == uris.property, valueType == uris.urid, valueSize >= 4 { property = body.load(as: UInt32.self) }
                if key == uris.value { value = number(valueType, body, valueSize) }
            }
            if let value, let slot = slot(of: property) { update(Int(parameters[slot]), value) }
        } else if otype == uris.put {
            forEachProperty(data, size: size) { key, valueType, body, valueSize in
                guard key == uris.body, valueType == uris.object || valueType == uris.blank || valueType == uris.resource else { return }
                forEachProperty(body, size: valueSize) { key, valueType, value, valueSize in
                    if let slot = slot(of: key), let number = number(valueType, value, valueSize) {
                        update(Int(parameters[slot]), number)
                    }
                }
            }
        }
    }

    @inline(__always)
    private func slot(of key: UInt32) -> Int? {
        for slot in 0..<count where keys[slot] == key { return slot }
        return nil
    }

    @inline(__always)
    private func number(_ type: UInt32, _ body: UnsafeRawPointer, _ size: Int) -> Float? {
        switch type {
        case uris.float where size >= 4: return body.loadUnaligned(as: Float.self)
        case uris.double where size >= 8: return Float(body.loadUnaligned(as: Double.self))
        case uris.int where size >= 4, uris.bool where size >= 4: return Float(body.loadUnaligned(as: Int32.self))
        case uris.long where size >= 8: return Float(body.loadUnaligned(as: Int64.self))
        default: return nil
        }
    }

    /// Calls `body` with each property of an object atom's body of `size` bytes.
    @inline(__always)
    private func forEachProperty(
        _ object: UnsafeRawPointer, size: Int, _ body: (_ key: UInt32, _ type: UInt32, _ value: UnsafeRawPointer, _ size: Int) -> Void
    ) {
        var position = 8
        while position + 16 <= size {
            let key = object.load(fromByteOffset: position, as: UInt32.self)
            let valueSize = Int(object.load(fromByteOffset: position + 8, as: UInt32.self))
            let valueType = object.load(fromByteOffset: position + 12, as: UInt32.self)
            guard position + 16 + valueSize <= size else { return }
            body(key, valueType, object + position + 16, valueSize)
            position += 16 + AtomSequence.padded(valueSize)
        }
    }
}
