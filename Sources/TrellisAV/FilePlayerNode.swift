import TrellisMedia

/// The node under `AVAudioPlayer`: Trellis' file player (rate at unchanged pitch,
/// loops, meters), which `AVAudioPlayerNode`'s schedule has no use for.
final class FilePlayerNode: AVAudioNode, @unchecked Sendable {
    var player: FilePlayer { unit as! FilePlayer }

    init() { super.init(unit: FilePlayer(channelCount: 2)) }
}
