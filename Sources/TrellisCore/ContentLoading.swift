/// A unit that plays content it loads from a file: a sampler's SoundFont or folder of
/// samples. A session's `file:` names it.
public protocol ContentLoading: AnyObject {
    /// Reads what the unit plays from `path`, or says what is wrong with it, naming it
    /// (and changes nothing). Only while not initialized. Thread: control.
    func loadContent(path: String) throws(AudioUnitError)
    /// Keeps `path` without reading it, playing nothing: a session's placeholder for
    /// content that is missing or damaged, saved back as it was. Thread: control.
    func keepContent(path: String)
    /// The file or folder last loaded; nil for the unit's default.
    var contentPath: String? { get }
}
