/// Trellis' version: what `trellis --version` prints, what the Debian package is
/// versioned by (scripts/package-deb asks the built binary) and what the C interface's
/// `trellis_version` returns. The one place it is written.
public enum TrellisVersion {
    public static let text = "0.3.0"
}
