import CTrellisLV2Shim

/// The two forms a plugin's state takes in a session.
///
/// - The full form is what Trellis writes (`lilv_state_to_string`): a `pset:Preset`
///   that `lv2:appliesTo` the plugin, with `lv2:port` values and a `state:state` node.
/// - The short form is for people: the plugin's properties as they would stand inside
///   its `state:state [ … ]`, a Turtle predicate-object list, after any `@prefix` lines:
///
///       @prefix params: <http://lv2plug.in/plugins/eg-params#> .
///       params:int 3 ;
///       params:string "Hello" .
///
/// Text that declares a `pset:Preset` is the full form; anything else is the short
/// form, which `document` turns into the full one for lilv.
enum LV2StateText {
    /// The first Turtle syntax error in the state as the user wrote it, placed on the
    /// user's lines: "line 2, column 5: bad verb".
    static func syntaxError(_ text: String, plugin uri: String) -> String? {
        let document = Self.document(text, plugin: uri)
        var message = [CChar](repeating: 0, count: 512)
        var line: UInt32 = 0, column: UInt32 = 0
        guard trellis_turtle_check(document, &message, message.count, &line, &column) != 0 else { return nil }
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let userLine = Int(line) - (isFullForm(text) ? 0 : 1)
        return userLine > 0 ? "line \(userLine), column \(column): \(reason)" : reason
    }

    static func isFullForm(_ text: String) -> Bool {
        text.contains("pset:Preset") || text.contains("ns/ext/presets#Preset")
    }

    /// The full-form document for `text`, a state of the plugin `uri`. The user's line
    /// n is the document's line n + 1, so parse errors can be placed on the user's text.
    static func document(_ text: String, plugin uri: String) -> String {
        if isFullForm(text) { return text }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
        let bodyStart = lines.firstIndex { line in
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            let lowered = trimmed.lowercased()
            let heading = trimmed.isEmpty || trimmed.first == "#" || trimmed.hasPrefix("@prefix") || trimmed.hasPrefix("@base")
                || lowered.hasPrefix("prefix ") || lowered.hasPrefix("base ")
            return !heading
        } ?? lines.count
        if bodyStart == lines.count { lines.append("") }
        lines[bodyStart] = "<urn:trellis:state> a pset:Preset ; lv2:appliesTo <\(uri)> ; state:state [ " + lines[bodyStart]
        var last = lines.count - 1
        while last > bodyStart, lines[last].drop(while: { $0 == " " || $0 == "\t" }).first == "#" { last -= 1 }
        var closing = lines[last]
        while let end = closing.last, end.isWhitespace { closing.removeLast() }
        if closing.last == "." { closing.removeLast() }
        lines[last] = closing + " ] ."
        let prefixes = "@prefix lv2: <http://lv2plug.in/ns/lv2core#> . @prefix pset: <http://lv2plug.in/ns/ext/presets#> . "
            + "@prefix state: <http://lv2plug.in/ns/ext/state#> ."
        return ([prefixes] + lines).joined(separator: "\n") + "\n"
    }
}
