/// A note named the way sample files are: a letter, sharps (`#`) or flats (`b`), and an
/// octave, with C4 = MIDI note 60 and A4 = 69 (scientific pitch). `C4.wav`, `A#2-soft.flac`,
/// `Db-1.aif`: the name is read up to the octave's digits; what follows (after `-`, `_` or
/// a space) is free. Thread: any.
enum NoteName {
    /// The MIDI note a file name starts with, nil when it does not name one (0...127).
    static func note(inFileName name: String) -> Int? {
        var characters = Substring(name.split(separator: "/").last ?? "")
        guard let letter = characters.first?.uppercased().first,
              let base = ["C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11][letter] else { return nil }
        characters = characters.dropFirst()
        var semitone = base
        while let accidental = characters.first, accidental == "#" || accidental == "b" {
            semitone += accidental == "b" ? -1 : 1
            characters = characters.dropFirst()
        }
        var sign = 1
        if characters.first == "-", characters.dropFirst().first?.isNumber == true {
            sign = -1
            characters = characters.dropFirst()
        }
        let digits = characters.prefix { $0.isNumber }
        guard !digits.isEmpty, digits.count <= 2, let octave = Int(digits) else { return nil }
        let rest = characters.dropFirst(digits.count)
        guard rest.isEmpty || rest.first == "-" || rest.first == "_" || rest.first == " " || rest.first == "." else { return nil }
        let note = (sign * octave + 1) * 12 + semitone
        return (0...127).contains(note) ? note : nil
    }
}
