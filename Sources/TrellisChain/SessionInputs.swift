import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisOffline
import TrellisSession
import TrellisUnits

/// What feeds a session's JACK input ports in an offline render: `PORT=FILE` assignments.
public enum SessionInputs {
    /// The graph's input channels in order: a file where an assignment names the port
    /// that channel stands for (converted to the session's rate at `conversion`
    /// quality, as sox's rate would), silence elsewhere.
    public static func files(
        for loaded: LoadedSession, assignments: [String], conversion: SampleRateConverter.Quality
    ) throws(CommandError) -> [any OfflineInput] {
        let ports = loaded.jack?.inputs ?? []
        var files: [Int: AudioFileReader] = [:]
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else { throw CommandError("--input \(assignment): expected PORT=FILE", kind: .argument) }
            let port = String(assignment[..<equals]), path = String(assignment[assignment.index(after: equals)...])
            guard let index = ports.firstIndex(of: port) else {
                throw CommandError("--input \(assignment): the session has no JACK input port \"\(port)\"\(Suggestions.didYouMean(Suggestions.closest(to: port, among: ports)))",
                                   kind: .argument)
            }
            do { files[index] = try AudioFileReader(path: path) } catch { throw CommandError("--input \(assignment): \(error)", kind: .file) }
        }
        var inputs: [any OfflineInput] = []
        var channel = 0
        let total = loaded.graph.plan?.inputChannelCount ?? 0
        while channel < total {
            if let reader = files[channel] {
                if reader.info.sampleRate == loaded.graph.sampleRate {
                    inputs.append(FileInput(reader: reader))
                } else {
                    do { inputs.append(try ResampledFileInput(reader: reader, rate: loaded.graph.sampleRate, quality: conversion)) } catch {
                        throw CommandError("--input: \(error)", kind: .file)
                    }
                }
                channel += reader.info.channelCount
            } else {
                inputs.append(Silence())
                channel += 1
            }
        }
        return inputs
    }
}

/// One silent input channel.
public struct Silence: OfflineInput {
    public init() {}
    public var channelCount: Int { 1 }
    public func fill(_ buffers: AudioBuffers, frameCount: Int) throws(AudioFileError) {}
}
