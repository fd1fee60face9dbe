import TrellisChain

/// A failure the command line reports as one line on stderr, exiting with status 1:
/// the chain module's, so its failures pass through unchanged.
typealias CLIError = CommandError
