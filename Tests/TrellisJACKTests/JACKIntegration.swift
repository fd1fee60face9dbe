import Testing
import TrellisTestSupport

/// Every test that talks to jackd lives under this suite and runs one at a time: libjack
/// keeps per-process state about the server it talks to, so one process should not talk
/// to two private servers at once.
@Suite("The JACK head node on a real jackd", .serialized, .liveAudio)
struct JACKIntegration {}
