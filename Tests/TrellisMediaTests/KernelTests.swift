import Testing
import TrellisCore
import TrellisEngine
import TrellisMedia

@Suite("Media kernels")
struct KernelTests {
    @Test("the player, the recorder, taps and meters have kernels of their own, so nothing of the media runs through a bridge")
    func noBridges() throws {
        let player = FilePlayer()
        try player.initialize()
        #expect(player.renderKernel != nil)
        player.uninitialize()
        #expect(player.renderKernel == nil)
        let recorder = FileRecorder(channelCount: 1)
        #expect(recorder.observerKernel != nil)
        try recorder.initialize()
        #expect(recorder.renderKernel != nil)
        recorder.uninitialize()
        #expect(Tap(channelCount: 1) { _ in }.observerKernel != nil)
        #expect(BusMeter(channelCount: 2).observerKernel != nil)
    }
}
