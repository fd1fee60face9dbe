import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisMedia

extension LoadedSession {
    /// A warning when the session's `defaults: sample-rate` is not the rate it runs at
    /// (a JACK server's), which wins: nil when they agree or the session names none.
    public func rateWarning(runningAt rate: Double) -> String? {
        guard let asked = loadedDocument.defaults.sampleRate, asked != rate else { return nil }
        return "\(path ?? loadedDocument.file): the session asks for \(Int(asked)) Hz (defaults: sample-rate) but runs at the server's \(Int(rate)) Hz; players' files are resampled, and everything else follows the server's rate"
    }

    /// How long the session's players play, in frames at the graph's rate: the longest
    /// player with its loops, or nil when there is none or one loops forever. A MIDI
    /// file's song counts from its start on the transport and with `midiTail` seconds
    /// more, for the instrument's last notes to ring out.
    public var playedFrames: Int? {
        var longest: Int?
        for spec in players {
            if let song = spec.unit as? MIDIFilePlayer {
                guard spec.loops >= 0 else { return nil }
                let start = Double((try? song.parameterValue(ParameterAddress(0))) ?? 0)
                let seconds = start + song.duration * Double(spec.loops + 1) + Self.midiTail
                longest = max(longest ?? 0, Int(TimeContext.whole(clamping: (seconds * graph.sampleRate).rounded(.up))))
                continue
            }
            guard spec.loops >= 0, let player = spec.unit as? FilePlayer, let info = player.fileInfo else { return nil }
            // A player at rate r (its own, and a time-pitch unit's it feeds) plays its file in 1/r of the file's time.
            // Clamped: a header may claim any length, and a player loop any number of times.
            let once = TimeContext.whole(clamping: (Double(info.frameCount) * graph.sampleRate / (info.sampleRate * player.effectiveRate)).rounded(.up))
            let frames = Int(TimeContext.whole(clamping: Double(once) * Double(spec.loops + 1)))
            longest = max(longest ?? 0, frames)
        }
        return longest
    }

    /// Seconds a render goes on past a MIDI file's end.
    public static let midiTail = 2.0

    /// Starts every player at the same sample time (sample-synchronously; nil is the next
    /// cycle) and every
    /// recorder, which the session attaches to its source bus as an observer. Returns the
    /// recorders, to stop when the run ends. Thread: control, after the graph is initialized.
    /// The transport clock starts as `clock` (else the session's `transport:`) says;
    /// `rolling` overrides whether it rolls (a render always does). Given `readAhead`
    /// seconds (live), every player first has its file read ahead, so none starts on an
    /// empty ring; one whose file does not answer in time starts nothing.
    public func startTransport(
        atSampleTime sampleTime: Int64? = 0, clock: TransportSpec? = nil, rolling: Bool? = nil, readAhead: Double? = nil
    ) throws(SessionTransportError) -> [FileRecorder] {
        if let readAhead { try readPlayersAhead(timeout: readAhead) }
        let recorders = try attachRecorders()
        startClock(clock ?? loadedDocument.transport ?? TransportSpec(), rolling: rolling)
        for (target, recorder) in zip(self.recorders, recorders) {
            do {
                try recorder.prepareToRecord(path: target.path, settings: target.settings)
                try recorder.record(atSampleTime: sampleTime)
            } catch {
                throw SessionTransportError(message: "recorder \(target.name): \(error)", location: target.location)
            }
        }
        for spec in players {
            guard let player = spec.unit as? FilePlayer else { continue }
            do { try player.play(atSampleTime: sampleTime) } catch {
                throw SessionTransportError(message: "player \(spec.node): \(error)", location: spec.location)
            }
        }
        return recorders
    }

    /// Opens every player's file and waits until its ring is full. Thread: control.
    private func readPlayersAhead(timeout: Double) throws(SessionTransportError) {
        for spec in players {
            guard let player = spec.unit as? FilePlayer else { continue }
            do { try player.prepare() } catch {
                throw SessionTransportError(message: "player \(spec.node): \(error)", location: spec.location)
            }
            guard player.waitUntilReady(timeout: timeout) else {
                throw SessionTransportError(message: "player \(spec.node): its file \(spec.path) did not answer within \(timeout) s", location: spec.location)
            }
        }
    }

    /// Brings the engine's transport clock to `spec`: tempo, meter, start, rolling or
    /// not, from the next cycle. Thread: control.
    public func startClock(_ spec: TransportSpec, rolling: Bool?) {
        for command in spec.commands(sampleRate: graph.sampleRate, rolling: rolling) { graph.engine.changeTransport(command) }
    }

    /// A recorder for each of the session's `recorders:`, attached to its source bus and
    /// not recording, in the same order; every file is checked first, so a recorder that
    /// cannot start never follows one that has replaced a take. Thread: control.
    /// Those in `kept` (carried over with `carry`) are taken as they are.
    public func attachRecorders(keeping kept: [String: FileRecorder] = [:]) throws(SessionTransportError) -> [FileRecorder] {
        var recorders: [FileRecorder] = []
        for target in self.recorders {
            if let recorder = kept[target.name] {
                recorders.append(recorder)
                continue
            }
            let channels = (try? target.unit.format(scope: .output, element: target.bus).channelCount) ?? 2
            let recorder = FileRecorder(channelCount: channels, sampleRate: graph.sampleRate)
            do {
                try graph.addObserver(recorder, node: target.node, bus: target.bus)
                try recorder.checkRecording(path: target.path, settings: target.settings)
            } catch {
                throw SessionTransportError(message: "recorder \(target.name): \(error)", location: target.location)
            }
            recorders.append(recorder)
        }
        return recorders
    }
}

extension LoadedSession {
    /// Attaches a recorder of the running session, still recording, to this session's
    /// recorder of the same name, so that its take goes on through a `load` without a
    /// lost frame: call before `initialize`, whose first program then feeds it from the
    /// cycle the old program stops. Refused (false) when this session has no recorder of
    /// that name, or one of another width or rate. Thread: control.
    public func carry(_ recorder: FileRecorder, as name: String) -> Bool {
        guard !graph.isInitialized, let target = recorders.first(where: { $0.name == name }),
              recorder.sampleRate == graph.sampleRate,
              let width = try? recorder.format(scope: .input, element: 0).channelCount,
              (try? target.unit.format(scope: .output, element: target.bus).channelCount) == width
        else { return false }
        do { try graph.addObserver(recorder, node: target.node, bus: target.bus) } catch { return false }
        return true
    }
}

/// A player or recorder that could not start, at its place in the session file.
public struct SessionTransportError: Error, CustomStringConvertible {
    public var message: String
    public var location: SourceLocation
    public var description: String { "\(location): \(message)" }
}
