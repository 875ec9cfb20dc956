// GitRevisionGenerator PACKAGE-DIRECTORY OUTPUT.swift: writes a Swift source declaring the
// commit the package directory's .git points at, or "unknown" when there is none (a source
// tarball). Run by GitRevisionPlugin at build time; reads the files git itself reads, so it
// needs no git binary: HEAD, the ref it names (a loose ref file or packed-refs), and for a
// linked worktree (.git is a file `gitdir: …`) the worktree's git directory and its commondir.
import Foundation

@main
enum GitRevisionGenerator {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: GitRevisionGenerator PACKAGE-DIRECTORY OUTPUT.swift\n".utf8))
            exit(2)
        }
        let revision = GitCheckout(packageDirectory: arguments[1])?.headCommit() ?? "unknown"
        let source = """
            // Generated at build time by GitRevisionPlugin from the package's .git: do not edit.

            /// The build's source revision.
            package enum BuildRevision {
                /// The commit the executables were built from (40 or 64 lowercase hex digits), or
                /// "unknown" when the package directory has no .git (e.g. a source tarball).
                package static let commit = "\(revision)"
            }

            """
        try Data(source.utf8).write(to: URL(fileURLWithPath: arguments[2]))
    }
}

/// The git directories of a checkout, as git finds them for a working tree.
struct GitCheckout {
    /// Where HEAD is: `.git`, or a linked worktree's `.git/worktrees/NAME`.
    let gitDirectory: URL
    /// Where the shared refs and packed-refs are: the git directory, or what its `commondir` names.
    let commonDirectory: URL

    /// The checkout whose work tree is `packageDirectory`; nil without a `.git` there.
    init?(packageDirectory: String) {
        let root = URL(fileURLWithPath: packageDirectory)
        let dotGit = root.appendingPathComponent(".git")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue {
            gitDirectory = dotGit
        } else {
            // A linked worktree or a submodule: ".git" holds "gitdir: PATH", PATH relative to the
            // work tree unless absolute.
            guard let line = Self.firstLine(of: dotGit), line.hasPrefix("gitdir:") else { return nil }
            gitDirectory = Self.resolve(String(line.dropFirst("gitdir:".count)).trimmingCharacters(in: .whitespaces), against: root)
        }
        if let common = Self.firstLine(of: gitDirectory.appendingPathComponent("commondir")) {
            commonDirectory = Self.resolve(common, against: gitDirectory)
        } else {
            commonDirectory = gitDirectory
        }
    }

    /// The commit HEAD names: detached (a hash in HEAD) or through a branch (a loose ref file in
    /// the git or common directory, else a line of packed-refs); nil for an unborn branch or
    /// anything unreadable.
    func headCommit() -> String? {
        guard let head = Self.firstLine(of: gitDirectory.appendingPathComponent("HEAD")) else { return nil }
        guard head.hasPrefix("ref:") else { return Self.isCommit(head) ? head.lowercased() : nil }
        let ref = head.dropFirst("ref:".count).trimmingCharacters(in: .whitespaces)
        for directory in [gitDirectory, commonDirectory] {
            if let hash = Self.firstLine(of: directory.appendingPathComponent(ref)), Self.isCommit(hash) {
                return hash.lowercased()
            }
        }
        guard let data = FileManager.default.contents(atPath: commonDirectory.appendingPathComponent("packed-refs").path) else {
            return nil
        }
        let packed = String(decoding: data, as: UTF8.self)
        for line in packed.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") && !line.hasPrefix("^") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[1] == ref, Self.isCommit(String(parts[0])) { return parts[0].lowercased() }
        }
        return nil
    }

    static func isCommit(_ text: String) -> Bool {
        (text.count == 40 || text.count == 64) && text.allSatisfy(\.isHexDigit)
    }

    static func firstLine(of url: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func resolve(_ path: String, against base: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path).standardizedFileURL
    }
}
