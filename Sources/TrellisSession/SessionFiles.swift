import Foundation
import TrellisCore

/// The files a session names for its nodes (`files:` and players' `file:`), made
/// relative to where the session is saved, or gathered into a folder with it.
extension SessionDocument {
    /// Absolute `files:` paths inside `folder` (or below it) written relative to it;
    /// others stay absolute, so a saved session still finds them.
    func relativizingFiles(to folder: String) -> SessionDocument {
        guard folder.hasPrefix("/") else { return self }
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        var document = self
        document.graph = document.graph.mappingFiles { file in
            file.hasPrefix(base) ? String(file.dropFirst(base.count)) : file
        }
        return document
    }

    /// The session as `save --bundle FOLDER` writes it: every node's `files:` and every
    /// player's `file:` (resolved against `directory`, the folder the session's
    /// relative paths are in) copied into `FOLDER/files/`, named by their own names
    /// (`-2`, `-3`... where two share one), and the document naming the copies. The
    /// folder must not exist, or be empty; nothing is left in it on failure (and a folder it made is removed). Returns the
    /// session file's path. Thread: control.
    public func writeBundle(to folder: String, directory: String, name: String) throws(SessionWriteError) -> String {
        for subgraph in graph.subgraphs {
            guard case .file(let file) = subgraph.definition else { continue }
            throw SessionWriteError(path: folder, reason: "subgraph \(subgraph.name) is defined in a file of its own (\(file)); a bundle carries the files nodes play or take, not session files")
        }
        // The copies are the user's media: the folder must be theirs alone (a new one is
        // made so), not a link, in a parent no one else can swap it in.
        if let problem = Files.privateFolderProblem(folder) {
            throw SessionWriteError(path: folder, reason: "a bundle is not written there: \(problem)")
        }
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        let existed = manager.fileExists(atPath: folder, isDirectory: &isFolder)
        if existed {
            guard isFolder.boolValue, (try? manager.contentsOfDirectory(atPath: folder))?.isEmpty == true else {
                throw SessionWriteError(path: folder, reason: "a bundle is written into a new or empty folder")
            }
        } else {
            do { try manager.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700]) } catch {
                throw SessionWriteError(path: folder, reason: "the folder could not be made: \(error.localizedDescription)")
            }
        }
        var copies: [String: String] = [:]
        var taken = Set<String>()
        var failure: SessionWriteError?
        let bundled = graph.mappingFiles(players: true) { file in
            let source = SessionLoader.resolve(file, in: directory)
            if let copy = copies[source] { return copy }
            guard failure == nil else { return file }
            let own = URL(fileURLWithPath: source)
            let stem = own.deletingPathExtension().lastPathComponent, suffix = own.pathExtension.isEmpty ? "" : "." + own.pathExtension
            var copy = "files/" + own.lastPathComponent
            var number = 2
            while taken.contains(copy) {
                copy = "files/\(stem)-\(number)\(suffix)"
                number += 1
            }
            do {
                try manager.createDirectory(atPath: folder + "/files", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                try manager.copyItem(atPath: source, toPath: folder + "/" + copy)
            } catch {
                failure = SessionWriteError(path: source, reason: "could not be copied into the bundle: \(error.localizedDescription)")
                return file
            }
            taken.insert(copy)
            copies[source] = copy
            return copy
        }
        let session = folder + "/" + name
        do throws(SessionWriteError) {
            if let failure { throw failure }
            var document = self
            document.graph = bundled
            try SessionWriter.save(document, to: session)
        } catch {
            try? manager.removeItem(atPath: folder + "/files")
            if !existed { try? manager.removeItem(atPath: folder) }
            throw error
        }
        return session
    }
}

extension NodeSource {
    var isUnit: Bool { if case .subgraph = self { false } else { true } }
}

extension GraphBody {
    /// The body with every node's `files:` path (and with `players`, every `file:`
    /// of a node that is not a subgraph) replaced by `transform`'s, inline subgraphs
    /// included.
    func mappingFiles(players: Bool = false, _ transform: (String) -> String) -> GraphBody {
        var body = self
        for index in body.nodes.indices {
            for file in body.nodes[index].files.indices {
                body.nodes[index].files[file].value = transform(body.nodes[index].files[file].value)
            }
            if players, let file = body.nodes[index].file, body.nodes[index].source.isUnit { body.nodes[index].file = transform(file) }
        }
        for index in body.subgraphs.indices {
            if case .inline(let inner) = body.subgraphs[index].definition {
                body.subgraphs[index].definition = .inline(inner.mappingFiles(players: players, transform))
            }
        }
        return body
    }
}
