import Foundation
import Testing
import TrellisTestSupport
import TrellisCore
import TrellisGraph
import TrellisMedia
import TrellisUnits

@Suite("Render thread allocations")
struct AllocationTests {
    @Test("the render thread allocates nothing with a player, a recorder, a tap and a meter active")
    func zeroAllocations() throws {
        let directory = TemporaryDirectory()
        let source = directory.file("loop.wav")
        try writeSignalFile(source, frames: 48_000)
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let player = FilePlayer()
        try player.load(path: source)
        player.loopCount = -1
        let playerNode = try graph.addNode(player, name: "player")
        let recorder = FileRecorder(channelCount: 1)
        let recorderNode = try graph.addNode(recorder, name: "recorder")
        let output = try graph.addNode(GenericOutput(channelCount: 1), name: "out")
        try graph.connect(playerNode, to: recorderNode)
        try graph.connect(recorderNode, to: output)
        let delivered = Locked(0)
        let tap = Tap(channelCount: 1, bufferSize: 1024) { _ in delivered.withLock { $0 += 1 } }
        try graph.addObserver(tap, node: playerNode)
        let meter = BusMeter(channelCount: 1)
        try graph.addObserver(meter, node: recorderNode)
        try graph.initialize()
        player.addTimeObserver(interval: 0.05) { _ in }
        try recorder.prepareToRecord(path: directory.file("take.wav"))
        try player.prepare()
        #expect(player.waitUntilReady())
        try player.play()
        try recorder.record()

        let renderer = MediaRenderThread(graph: graph, slice: 256, pacingMicroseconds: 1000, countAllocationsAfterCycles: 50)
        renderer.run(cycles: 1_050)
        meter.updateMeters()
        let frames = try recorder.stop()
        player.stop()

        #expect(renderer.allocations == 0)
        #expect(renderer.frees == 0)
        #expect(frames + recorder.overrunFrames == 1_050 * 256)
        #expect(delivered.current > 200)
        #expect(meter.peakPower(forChannel: 0) > -10)
    }

    @Test("the render thread allocates nothing while a MIDI file player plays, loops and is moved and stopped")
    func midiPlayerAllocatesNothing() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("song.mid")
        try Data(TestMIDIFile.twoTrackSong).write(to: URL(fileURLWithPath: path))
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let player = MIDIFilePlayer()
        try player.load(path: path)
        player.loopCount = -1
        let song = try graph.addNode(player, name: "song")
        let port = try graph.addNode(MIDIOutputPort(port: 0), name: "midi_out")
        try graph.connectMIDI(song, to: port)
        try graph.initialize()
        graph.engine.changeTransport(.play)
        let renderer = MediaRenderThread(graph: graph, slice: 256, pacingMicroseconds: 200, countAllocationsAfterCycles: 50)
        let mover = Thread {
            for frame in stride(from: Int64(0), to: 400_000, by: 37_000) {
                usleep(20_000)
                graph.engine.changeTransport(.locate(frame: frame))
                graph.engine.changeTransport(frame % 2 == 0 ? .stop : .play)
            }
            graph.engine.changeTransport(.play)
        }
        mover.start()
        renderer.run(cycles: 2_050)
        #expect(renderer.allocations == 0)
        #expect(renderer.frees == 0)
    }
}
