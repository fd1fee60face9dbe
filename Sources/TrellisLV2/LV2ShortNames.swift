/// Short names that, once given to a plugin, stay with it: installing a plugin whose
/// URI ends like another's never takes that one's name, and removing one never frees
/// its name for another (a reinstalled plugin gets its own back).
///
/// A name is `LV2ComponentCodes.shortName(uri:)` (`lv2-<leaf>`), or that with `-2`,
/// `-3`, ... when the name is already given. New plugins are named in sorted URI order,
/// so on a machine that never had a table, names come out as they always did. The
/// table's file form is one `name<TAB>uri` line per name. Thread: any (a value).
public struct LV2ShortNames: Sendable, Equatable {
    private var uriByName: [String: String] = [:]
    private var nameByURI: [String: String] = [:]

    public init() {}

    /// Reads the table's file form; lines that are not `name<TAB>uri`, and names or URIs
    /// met before, are skipped.
    public init(text: String) {
        LV2Catalog.forEachRecord(in: text) { fields in
            guard fields.count == 2, !fields[0].isEmpty, !fields[1].isEmpty else { return }
            let name = fields[0], uri = fields[1], key = name.lowercased()
            guard uriByName[key] == nil, nameByURI[uri] == nil else { return }
            uriByName[key] = uri
            nameByURI[uri] = name
        }
    }

    public var text: String {
        nameByURI.sorted { $0.value < $1.value }.map { LV2Catalog.record($0.value, $0.key) + "\n" }.joined()
    }

    public var isEmpty: Bool { nameByURI.isEmpty }

    public func name(uri: String) -> String? { nameByURI[uri] }

    /// The URI a name was given to, compared without case.
    public func uri(name: String) -> String? { uriByName[name.lowercased()] }

    /// Gives every URI that has no name one. Returns whether any name was given.
    @discardableResult
    public mutating func assign(_ uris: [String]) -> Bool {
        var changed = false
        for uri in uris.sorted() where nameByURI[uri] == nil {
            let base = LV2ComponentCodes.shortName(uri: uri)
            var name = base, suffix = 2
            while uriByName[name.lowercased()] != nil {
                name = "\(base)-\(suffix)"
                suffix += 1
            }
            uriByName[name.lowercased()] = uri
            nameByURI[uri] = name
            changed = true
        }
        return changed
    }
}
