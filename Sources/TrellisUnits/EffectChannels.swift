import TrellisCore

extension AudioUnitBase {
    /// The channel count an in-place effect runs with: its input and output buses must agree.
    /// Thread: control.
    func matchingChannelCount() throws(AudioUnitError) -> Int {
        let input = try format(scope: .input, element: 0).channelCount
        let output = try format(scope: .output, element: 0).channelCount
        guard input == output else {
            throw .failedToInitialize("its input has \(input) channels but its output has \(output)", unit: name)
        }
        return input
    }
}
