import CLilv
import Glibc

/// Keeps a plugin's library loaded for the life of the process once an instance has
/// loaded it. lilv closes a library when its last instance is freed; loading it again
/// (the next initialization, at another block size) would run its initialisers a second
/// time, which some libraries do not survive (libinstpatch's GLib types, registered
/// twice, hang a-fluidsynth). Thread: control.
enum LV2LibraryPin {
    /// Marks `library` (a file URI, as lilv gives it) never to be unloaded; it is
    /// already loaded, so nothing is loaded or initialised here.
    static func pin(_ library: String?) {
        guard let library, let path = lilv_file_uri_parse(library, nil) else { return }
        defer { lilv_free(path) }
        if let handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) { dlclose(handle) }
    }
}
