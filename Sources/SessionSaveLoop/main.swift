// Loads a session and saves it again and again, changing a parameter each time, until
// killed. The session tests SIGKILL it at random moments and check that the file is
// always a whole session, the old or a new one.
//
// usage: SessionSaveLoop SESSION NODE PARAMETER
import Foundation
import TrellisSession
import TrellisUnits

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: SessionSaveLoop SESSION NODE PARAMETER\n".utf8))
    exit(2)
}
let session: LoadedSession
do {
    session = try SessionLoader.load(path: arguments[1], registry: BuiltInUnits.registry(), options: .init(initialize: false))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
let node = try session.graph.node(named: arguments[2]).id
var round = 0
FileHandle.standardOutput.write(Data("saving\n".utf8))
while true {
    round += 1
    try session.graph.setParameter(node, arguments[3], Float(round % 100) / 10 - 5)
    try session.save()
}
