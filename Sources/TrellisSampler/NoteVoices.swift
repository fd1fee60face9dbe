import TrellisCore

/// The note bank's voices: plain memory the kernel plays from. A note-on takes a free
/// voice (or steals the oldest past the polyphony), plays its sample repitched by
/// 4-point Hermite interpolation at velocity² gain, and a note-off (held while the sustain
/// pedal is down) starts a release of `releaseSeconds` to −60 dB. Pitch bend spans ±2
/// semitones. Thread: audio, or the control side while no program runs the kernel.
struct NoteVoices {
    static let capacity = 128
    static let releaseSeconds = 0.25
    /// Ramp at a note's start and a stolen voice's end, against clicks.
    static let fadeSeconds = 0.002

    struct Voice {
        var active = false
        var note = 0
        var sample = 0
        var position = 0.0
        var step = 0.0
        var gain: Float = 0
        var envelope: Float = 0
        var releasing = false
        var held = false
        var age = 0
    }

    let samples: UnsafePointer<NoteSample>
    let map: UnsafePointer<Int32>
    let voices: UnsafeMutablePointer<Voice>
    let sampleRate: Double
    var polyphony = 64
    var gain: Float = 1
    var tuningCents: Float = 0
    var pan: Float = 0
    var bendSemitones: Float = 0
    var sustain = false
    var clock = 0
    let releaseFactor: Float
    let attackStep: Float

    init(samples: UnsafePointer<NoteSample>, map: UnsafePointer<Int32>, voices: UnsafeMutablePointer<Voice>, sampleRate: Double) {
        self.samples = samples
        self.map = map
        self.voices = voices
        self.sampleRate = sampleRate
        releaseFactor = Float(_exp(-3 * 2.302585092994046 / (Self.releaseSeconds * sampleRate)))
        attackStep = Float(1 / (Self.fadeSeconds * sampleRate))
    }

    mutating func silence() {
        for index in 0..<Self.capacity { voices[index].active = false }
        sustain = false
        bendSemitones = 0
    }

    /// The playback step for `note` on `sample`: the pitch ratio times the rate ratio.
    @inline(__always)
    func step(note: Int, sample: Int) -> Double {
        let semitones = Double(note - samples[sample].root) + Double(tuningCents) / 100 + Double(bendSemitones)
        return _exp2(semitones / 12) * samples[sample].rate / sampleRate
    }

    mutating func receive(status: UInt8, data1: UInt8, data2: UInt8) {
        switch status & 0xF0 {
        case 0x90 where data2 > 0: noteOn(Int(data1 & 0x7F), velocity: Int(data2 & 0x7F))
        case 0x80, 0x90: noteOff(Int(data1 & 0x7F))
        case 0xB0 where data1 == 64:
            sustain = data2 >= 64
            if !sustain {
                for index in 0..<Self.capacity where voices[index].active && voices[index].held {
                    voices[index].held = false
                    voices[index].releasing = true
                }
            }
        case 0xB0 where data1 == 120 || data1 == 123:
            for index in 0..<Self.capacity where voices[index].active { voices[index].releasing = true }
        case 0xE0:
            bendSemitones = Float(Int(data2 & 0x7F) << 7 | Int(data1 & 0x7F) - 8192) / 8192 * 2
            for index in 0..<Self.capacity where voices[index].active {
                voices[index].step = step(note: voices[index].note, sample: voices[index].sample)
            }
        default: break
        }
    }

    mutating func noteOn(_ note: Int, velocity: Int) {
        var chosen = -1, active = 0, oldest = -1
        for index in 0..<Self.capacity {
            if voices[index].active {
                active += 1
                if oldest < 0 || voices[index].age < voices[oldest].age { oldest = index }
            } else if chosen < 0 {
                chosen = index
            }
        }
        if chosen < 0 || active >= polyphony { chosen = oldest }
        guard chosen >= 0 else { return }
        let sample = Int(map[note * 8 + min(7, max(0, velocity - 1) / 16)])
        let level = Float(velocity) / 127
        clock &+= 1
        voices[chosen] = Voice(active: true, note: note, sample: sample, position: 0, step: step(note: note, sample: sample),
                               gain: level * level, envelope: 0, releasing: false, held: false, age: clock)
    }

    mutating func noteOff(_ note: Int) {
        for index in 0..<Self.capacity where voices[index].active && voices[index].note == note && !voices[index].releasing {
            if sustain { voices[index].held = true } else { voices[index].releasing = true }
        }
    }

    /// Hermite interpolation of `data` around `position` (zeros outside `0..<frames`).
    @inline(__always)
    static func read(_ data: UnsafeMutablePointer<Float>, _ frames: Int, _ position: Double) -> Float {
        let whole = Int(position)
        let t = Float(position - Double(whole))
        @inline(__always) func at(_ index: Int) -> Float { index >= 0 && index < frames ? data[index] : 0 }
        let y0 = at(whole - 1), y1 = at(whole), y2 = at(whole + 1), y3 = at(whole + 2)
        let c1 = 0.5 * (y2 - y0)
        let c2 = y0 - 2.5 * y1 + 2 * y2 - 0.5 * y3
        let c3 = 0.5 * (y3 - y0) + 1.5 * (y1 - y2)
        return ((c3 * t + c2) * t + c1) * t + y1
    }

    mutating func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        left.update(repeating: 0, count: frames)
        right.update(repeating: 0, count: frames)
        // Equal-power pan: −3 dB each side at the centre, normalised so the centre is unity.
        let angle = Double(pan + 1) * Double.pi / 4
        let leftPan = Float(_cos(angle) * 1.4142135623730951) * gain, rightPan = Float(_sin(angle) * 1.4142135623730951) * gain
        for index in 0..<Self.capacity where voices[index].active {
            var voice = voices[index]
            let sample = samples[voice.sample]
            for frame in 0..<frames {
                if voice.releasing {
                    voice.envelope *= releaseFactor
                    if voice.envelope < 0.001 { voice.active = false; break }
                } else if voice.envelope < 1 {
                    voice.envelope = min(1, voice.envelope + attackStep)
                }
                if voice.position >= Double(sample.frames + 1) { voice.active = false; break }
                let level = voice.gain * voice.envelope
                left[frame] += Self.read(sample.left, sample.frames, voice.position) * level * leftPan
                right[frame] += Self.read(sample.right, sample.frames, voice.position) * level * rightPan
                voice.position += voice.step
            }
            voices[index] = voice
        }
    }
}
