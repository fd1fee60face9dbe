import Foundation

/// Takes a live measurement until the machine lets it be judged.
///
/// A run that `disturbed` says the machine disturbed (xruns, a late cycle: another
/// process had the cores) is taken again after a pause that doubles from one second to
/// eight, for as long as `patience` allows; the other suites' busy stretches pass. Returns
/// the last run, disturbed or not, for the caller to judge.
public func undisturbedRun<Run>(
    patience: TimeInterval = 120, _ measure: () throws -> Run, disturbed: (Run) -> Bool
) rethrows -> Run {
    let giveUp = Date().addingTimeInterval(patience)
    var pause: UInt32 = 1
    var run = try measure()
    while disturbed(run), Date().addingTimeInterval(TimeInterval(pause)) < giveUp {
        sleep(pause)
        pause = min(pause * 2, 8)
        run = try measure()
    }
    return run
}
