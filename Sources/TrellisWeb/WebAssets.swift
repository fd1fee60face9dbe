/// The page's files, compiled into the binary (`Assets/`, embedded by the package):
/// plain HTML, CSS and ES modules, no build step. Thread: any.
enum WebAssets {
    struct Asset {
        var bytes: [UInt8]
        var contentType: String
    }

    static func named(_ name: String) -> Asset? {
        switch name {
        case "index.html": Asset(bytes: PackageResources.index_html, contentType: "text/html; charset=utf-8")
        case "desk.css": Asset(bytes: PackageResources.desk_css, contentType: "text/css; charset=utf-8")
        case "desk.js": Asset(bytes: PackageResources.desk_js, contentType: "text/javascript; charset=utf-8")
        case "protocol.js": Asset(bytes: PackageResources.protocol_js, contentType: "text/javascript; charset=utf-8")
        case "graph.js": Asset(bytes: PackageResources.graph_js, contentType: "text/javascript; charset=utf-8")
        case "controls.js": Asset(bytes: PackageResources.controls_js, contentType: "text/javascript; charset=utf-8")
        default: nil
        }
    }

    /// A take's type by its extension.
    static func audioType(of name: String) -> String {
        switch name.split(separator: ".").last?.lowercased() {
        case "wav": "audio/wav"
        case "flac": "audio/flac"
        case "ogg": "audio/ogg"
        case "aif", "aiff": "audio/aiff"
        case "caf": "audio/x-caf"
        default: "application/octet-stream"
        }
    }
}
