import Testing
@testable import TrellisJACK

@Suite("MIDI event list")
struct RingAndListTests {
    @Test("MIDI events from several ports are merged in frame order, stable for equal frames")
    func midiMerge() {
        let list = MIDIEventList(eventCapacity: 8, byteCapacity: 64)
        let bytes: [UInt8] = [1, 2, 3]
        bytes.withUnsafeBufferPointer { data in
            list.append(frame: 5, port: 0, data: data.baseAddress!, size: 1)
            list.append(frame: 40, port: 0, data: data.baseAddress! + 1, size: 1)
            list.append(frame: 5, port: 1, data: data.baseAddress! + 2, size: 1)
            list.append(frame: 0, port: 1, data: data.baseAddress!, size: 1)
        }
        #expect(list.events.map(\.frame) == [0, 5, 5, 40])
        #expect(list.events.map(\.port) == [1, 0, 1, 0])
        #expect(list.events.map { $0.bytes[0] } == [1, 1, 3, 2])
    }

    @Test("MIDI events beyond the list's capacity are dropped and counted")
    func midiOverflow() {
        let list = MIDIEventList(eventCapacity: 2, byteCapacity: 64)
        var byte: UInt8 = 0x90
        for frame in 0..<5 { list.append(frame: frame, port: 0, data: &byte, size: 1) }
        #expect(list.count == 2)
        #expect(list.droppedCount == 3)
    }
}
