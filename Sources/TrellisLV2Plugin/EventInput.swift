import CLV2
import TrellisCore

/// The plugin's atom input, read in `run`: MIDI becomes the kernel's events at their
/// frames, and a `patch:Set` of the content property (the sampler's bank) becomes a
/// request to the host's worker, which loads it (`ContentLoader`). Plain memory made at
/// instantiation in the instance's arena. Thread: audio, but for `init`.
///
/// A sequence is an atom (`size`, `type`), a body header (`unit`, `pad`), then events,
/// each a 64-bit frame time and an atom, padded to 8 bytes. A `patch:Set` is an object
/// atom: `id`, `otype`, then properties, each `key`, `context` and an atom.
struct EventInput {
    struct URIDs {
        var midiEvent, object, blank, urid, path, string, patchSet, patchProperty, patchValue, content: UInt32
    }

    let urids: URIDs
    /// The host's worker, when it has one: without it a bank comes only through the state.
    let schedule: UnsafePointer<LV2_Worker_Schedule>?
    /// A load request as the worker gets it: `WorkRequest.load` then the path, NUL-terminated.
    let request: UnsafeMutableRawPointer

    /// The most MIDI messages one `run` takes; later ones in the same call are dropped.
    static let maximumEvents = 1024
    static let requestCapacity = 4104

    /// Maps the URIs through the host's `urid:map`. Thread: instantiation.
    init(map: UnsafePointer<LV2_URID_Map>, content: String?, schedule: UnsafePointer<LV2_Worker_Schedule>?, in memory: Arena) {
        func urid(_ uri: String) -> UInt32 { map.pointee.map(map.pointee.handle, uri) }
        urids = URIDs(
            midiEvent: urid("http://lv2plug.in/ns/ext/midi#MidiEvent"),
            object: urid("http://lv2plug.in/ns/ext/atom#Object"), blank: urid("http://lv2plug.in/ns/ext/atom#Blank"),
            urid: urid("http://lv2plug.in/ns/ext/atom#URID"), path: urid("http://lv2plug.in/ns/ext/atom#Path"),
            string: urid("http://lv2plug.in/ns/ext/atom#String"),
            patchSet: urid("http://lv2plug.in/ns/ext/patch#Set"), patchProperty: urid("http://lv2plug.in/ns/ext/patch#property"),
            patchValue: urid("http://lv2plug.in/ns/ext/patch#value"), content: content.map(urid) ?? 0)
        self.schedule = schedule
        request = memory.takeBytes(Self.requestCapacity, alignment: 8)
    }

    /// Appends the sequence's MIDI messages to `events` (from `count`, at most
    /// `capacity`), their offsets within `frames`, and hands a content `patch:Set` to the
    /// worker. Returns the new count. Thread: audio.
    func read(_ sequence: UnsafeRawPointer, frames: Int, into events: UnsafeMutablePointer<RenderEvent>, count: Int, capacity: Int) -> Int {
        var count = count
        let end = 8 + Int(sequence.loadUnaligned(as: UInt32.self))
        var position = 16
        while position + 16 <= end {
            let event = sequence + position
            let time = event.loadUnaligned(as: Int64.self)
            let size = Int(event.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            let type = event.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
            let body = event + 16
            guard position + 16 + size <= end else { break }
            if type == urids.midiEvent, (1...3).contains(size), count < capacity {
                let status = body.load(as: UInt8.self)
                if status >= 0x80, status < 0xF0 {
                    events[count] = .midi(
                        status: status, data1: size > 1 ? body.load(fromByteOffset: 1, as: UInt8.self) : 0,
                        data2: size > 2 ? body.load(fromByteOffset: 2, as: UInt8.self) : 0, length: UInt8(size), bus: 0,
                        offset: Int32(min(max(time, 0), Int64(max(frames - 1, 0)))))
                    count += 1
                }
            } else if type == urids.object || type == urids.blank {
                requestContent(body, size: size)
            }
            position += (16 + size + 7) & ~7
        }
        return count
    }

    /// A `patch:Set` of the content property to a path: the path goes to the worker.
    private func requestContent(_ object: UnsafeRawPointer, size: Int) {
        guard let schedule, urids.content != 0, size >= 8,
              object.loadUnaligned(fromByteOffset: 4, as: UInt32.self) == urids.patchSet else { return }
        var property: UInt32 = 0
        var path: UnsafeRawPointer?
        var pathSize = 0
        var position = 8
        while position + 16 <= size {
            let key = object.loadUnaligned(fromByteOffset: position, as: UInt32.self)
            let valueSize = Int(object.loadUnaligned(fromByteOffset: position + 8, as: UInt32.self))
            let valueType = object.loadUnaligned(fromByteOffset: position + 12, as: UInt32.self)
            guard position + 16 + valueSize <= size else { return }
            if key == urids.patchProperty, valueType == urids.urid, valueSize >= 4 {
                property = object.loadUnaligned(fromByteOffset: position + 16, as: UInt32.self)
            } else if key == urids.patchValue, valueType == urids.path || valueType == urids.string {
                path = object + position + 16
                pathSize = valueSize
            }
            position += (16 + valueSize + 7) & ~7
        }
        guard property == urids.content, let path else { return }
        var length = 0
        while length < pathSize, path.load(fromByteOffset: length, as: UInt8.self) != 0 { length += 1 }
        guard length > 0, 4 + length + 1 <= Self.requestCapacity else { return }
        request.storeBytes(of: WorkRequest.load.rawValue, as: UInt32.self)
        for index in 0..<length { request.storeBytes(of: path.load(fromByteOffset: index, as: UInt8.self), toByteOffset: 4 + index, as: UInt8.self) }
        request.storeBytes(of: 0, toByteOffset: 4 + length, as: UInt8.self)
        let handle = schedule.pointee.handle, work = schedule.pointee.schedule_work
        _ = _unsafePerformance { work?(handle, UInt32(4 + length + 1), request) }
    }
}

/// What the plugin asks its worker for: the first 32 bits of each request.
enum WorkRequest: UInt32 {
    /// Read a bank from the path that follows.
    case load = 1
    /// The unit of the generation that follows renders now: drop the ones before it.
    case retire = 2
}
