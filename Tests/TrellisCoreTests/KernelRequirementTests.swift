import Testing
import TrellisCore

/// A unit that declares a bus but never makes a kernel.
private final class KernelLess: AudioUnitBase, @unchecked Sendable {
    init() {
        super.init(description: ComponentDescription(type: "aufx", subtype: "none", manufacturer: "test"), shortName: "kernelless", inputs: [2], outputs: [2])
    }
}

@Suite("Every unit renders through a kernel")
struct KernelRequirementTests {
    @Test("a unit that makes no kernel is refused at initialize, by name, and stays uninitialized")
    func unitWithoutKernelRefused() {
        let unit = KernelLess()
        #expect { try unit.initialize() } throws: {
            "\($0)".contains("kernelless") && "\($0)".contains("made no render kernel")
        }
        #expect(!unit.isInitialized)
    }
}
