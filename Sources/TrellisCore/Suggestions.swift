/// Finds the candidates closest to a misspelt name, for "did you mean" messages.
public enum Suggestions {
    /// Up to `limit` candidates within a small edit distance of `name`, closest first;
    /// candidates that contain `name` count as close.
    public static func closest(to name: String, among candidates: [String], limit: Int = 3) -> [String] {
        let needle = name.lowercased()
        let needleBytes = Array(needle.utf8)
        let length = needle.unicodeScalars.count
        let threshold = max(2, length / 3)
        var scored: [(String, Int)] = []
        for candidate in candidates {
            let lowered = candidate.lowercased()
            let bytes = Array(lowered.utf8)
            if !needle.isEmpty, contains(bytes, needleBytes) || contains(needleBytes, bytes) {
                scored.append((candidate, needle == lowered ? 0 : 1))
                continue
            }
            // The distance is at least the difference in length: a 100 KB name is not
            // compared cell by cell with every unit's name.
            guard abs(lowered.unicodeScalars.count - length) <= threshold else { continue }
            let distance = editDistance(needle, lowered)
            if distance <= threshold { scored.append((candidate, distance)) }
        }
        scored.sort { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
        var seen = Set<String>()
        return scored.map(\.0).filter { seen.insert($0).inserted }.prefix(limit).map { $0 }
    }

    /// Whether `part` occurs in `whole`, byte by byte (UTF-8 matches only at scalar
    /// boundaries): linear in practice, where String's search weighs every Character.
    private static func contains(_ whole: [UInt8], _ part: [UInt8]) -> Bool {
        guard !part.isEmpty else { return true }
        guard part.count <= whole.count else { return false }
        let first = part[0]
        var start = 0
        while start <= whole.count - part.count {
            if whole[start] == first {
                var matched = 1
                while matched < part.count && whole[start + matched] == part[matched] { matched += 1 }
                if matched == part.count { return true }
            }
            start += 1
        }
        return false
    }

    /// Edit distance over Unicode scalars, a swap of two neighbours counting as one edit
    /// (optimal string alignment): "gian" is one edit from "gain", the commonest slip.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }

    /// " (did you mean a, b?)" or "" when there is nothing close.
    public static func didYouMean(_ suggestions: [String]) -> String {
        suggestions.isEmpty ? "" : " (did you mean \(suggestions.joined(separator: ", "))?)"
    }
}
