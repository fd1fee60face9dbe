import Glibc

/// Keeps GUI toolkits that plugins start from aborting the process when there is no
/// display. Some instruments (drumkv1, samplv1, synthv1, padthv1) create a Qt
/// application when instantiated; with neither X11 nor Wayland, Qt's default platform
/// aborts. Its `offscreen` platform needs no display and draws nothing.
///
/// Only variables the user has not set are set, and only when there is no display, so a
/// user's choice always wins. Runs once per process, before the first world exists;
/// `setenv` is not safe beside other threads reading the environment, and no plugin
/// thread exists yet then. Thread: control.
enum HeadlessToolkits {
    /// What is set when there is no display: a toolkit's variable and its headless value.
    static let settings: [(name: String, value: String)] = [
        ("QT_QPA_PLATFORM", "offscreen"),
        ("SDL_VIDEODRIVER", "dummy"),
    ]

    /// Sets the variables the first time; later calls do nothing.
    static func prepare() { _ = applied }

    private static let applied: Bool = {
        guard !hasDisplay else { return false }
        for setting in settings where getenv(setting.name) == nil {
            setenv(setting.name, setting.value, 0)
        }
        return true
    }()

    /// Whether an X11 or Wayland display is named.
    static var hasDisplay: Bool {
        ["DISPLAY", "WAYLAND_DISPLAY"].contains { name in
            guard let value = getenv(name) else { return false }
            return value.pointee != 0
        }
    }
}
