import TrellisCore

/// The catalog's file form: one record per line, fields split by tabs, with `\\`, tab
/// and newline escaped. A file of another version, or one that does not parse, is
/// treated as no file: the catalog is made again.
///
///     trellis-lv2-catalog 1
///     path	/usr/lib/lv2:...
///     stamp	/usr/lib/lv2/eg-amp.lv2/	<directory, manifest times and size>
///     plugin	http://lv2plug.in/plugins/eg-amp	aufx	Example Amplifier	<problem or empty>
///     bundle	/usr/lib/lv2/eg-amp.lv2/        (a bundle of the plugin above)
extension LV2Catalog {
    static let header = "trellis-lv2-catalog 1"

    public var text: String {
        var lines = [Self.header, Self.record("path", searchPath)]
        for stamp in stamps { lines.append(Self.record("stamp", stamp.bundle, stamp.text)) }
        for entry in entries {
            lines.append(Self.record("plugin", entry.uri, entry.type.description, entry.name, entry.problem ?? ""))
            for bundle in entry.bundles { lines.append(Self.record("bundle", bundle)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public init?(text: String) {
        var path: String?
        var stamps: [LV2BundleIndex.Stamp] = []
        var entries: [Entry] = []
        var valid = true
        var first = true
        Self.forEachRecord(in: text) { fields in
            guard valid else { return }
            if first {
                first = false
                valid = fields == [Self.header]
                return
            }
            switch (fields.first, fields.count) {
            case ("path", 2): path = fields[1]
            case ("stamp", 3): stamps.append(LV2BundleIndex.Stamp(bundle: fields[1], text: fields[2]))
            case ("plugin", 5):
                guard let type = try? FourCC(fields[2]) else { valid = false; return }
                entries.append(Entry(uri: fields[1], name: fields[3], type: type, bundles: [], problem: fields[4].isEmpty ? nil : fields[4]))
            case ("bundle", 2):
                guard !entries.isEmpty else { valid = false; return }
                entries[entries.count - 1].bundles.append(fields[1])
            default: valid = false
            }
        }
        guard valid, !first, let path else { return nil }
        self.init(searchPath: path, stamps: stamps, entries: entries)
    }

    /// Calls `body` with each non-empty line's unescaped fields. Works on bytes: the
    /// catalog is read on every start-up that names a plugin.
    static func forEachRecord(in text: String, _ body: ([String]) -> Void) {
        var text = text
        text.withUTF8 { bytes in
            var fields: [String] = []
            var fieldStart = 0
            var escaped = false
            for index in 0...bytes.count {
                let byte = index < bytes.count ? bytes[index] : 0x0A
                switch byte {
                case 0x5C: escaped = true
                case 0x09, 0x0A:
                    let raw = UnsafeBufferPointer(rebasing: bytes[fieldStart..<index])
                    let field = String(decoding: raw, as: UTF8.self)
                    fields.append(escaped ? unescape(Substring(field)) : field)
                    escaped = false
                    fieldStart = index + 1
                    if byte == 0x0A {
                        if fields != [""] { body(fields) }
                        fields.removeAll(keepingCapacity: true)
                    }
                default: break
                }
            }
        }
    }

    static func record(_ fields: String...) -> String {
        fields.map(escape).joined(separator: "\t")
    }

    static func escape(_ field: String) -> String {
        guard field.contains(where: { $0 == "\\" || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return field }
        var out = ""
        for character in field {
            switch character {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.append(character)
            }
        }
        return out
    }

    static func unescape(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var out = ""
        var escaped = false
        for character in field {
            if escaped {
                switch character {
                case "t": out += "\t"
                case "n": out += "\n"
                case "r": out += "\r"
                default: out.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }
}
