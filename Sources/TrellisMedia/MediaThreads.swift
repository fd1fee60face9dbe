/// The two threads every player and recorder share, started on first use and kept
/// for the life of the process.
///
/// - The **butler** (as in Ardour) does all disk work: it reads ahead into each
///   prepared player's ring and writes each recorder's ring out to its file. One thread
///   for all streams keeps the disk's access pattern sequential-ish and the thread count
///   flat; a stream's ring holds over a second, so one slow read does not starve the
///   others. It polls every 2 ms (the render thread may not wake it) and is woken at
///   once by control calls (prepare, seek, stop).
/// - The **notifier** delivers players' and recorders' notifications (time updates,
///   end of file, underruns, write errors, finished recordings) to their handlers, so a
///   slow handler delays other handlers but never the disk.
///
/// Taps get a delivery thread each, since a tap's consumer may be slow on purpose.
enum MediaThreads {
    static let butler = ServiceThread(name: "trellis-butler", intervalNanoseconds: 2_000_000)
    static let notifier = ServiceThread(name: "trellis-notify", intervalNanoseconds: 5_000_000)
}
