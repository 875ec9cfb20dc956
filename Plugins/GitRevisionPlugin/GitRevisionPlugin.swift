// Generates GitRevision.swift (`BuildRevision.commit`) for the target it is applied to — only
// CLISupport, which only the executables use, so a package depending on SpeechDSP's libraries
// never runs it. The command reruns when a file it reads changes: HEAD, the branch's ref file,
// packed-refs (and .git itself when it is a worktree's `gitdir:` file). GitRevisionGenerator
// resolves the revision; this plugin only names those files, so that a new commit or checkout
// rebuilds the version text. Without a .git (a source tarball) the generator writes "unknown".
import Foundation
import PackagePlugin

@main
struct GitRevisionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let generator = try context.tool(named: "GitRevisionGenerator")
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("GitRevision.swift")
        let packageDirectory = context.package.directoryURL
        return [
            .buildCommand(
                displayName: "Reading the git revision of \(packageDirectory.lastPathComponent)",
                executable: generator.url,
                arguments: [packageDirectory.path, output.path],
                inputFiles: Self.gitFiles(packageDirectory: packageDirectory),
                outputFiles: [output])
        ]
    }

    /// The existing files HEAD's commit is read from (see GitRevisionGenerator's GitCheckout).
    static func gitFiles(packageDirectory: URL) -> [URL] {
        let manager = FileManager.default
        let dotGit = packageDirectory.appendingPathComponent(".git")
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) else { return [] }
        var files: [URL] = []
        let gitDirectory: URL
        if isDirectory.boolValue {
            gitDirectory = dotGit
        } else {
            files.append(dotGit)
            guard let line = firstLine(of: dotGit), line.hasPrefix("gitdir:") else { return files }
            gitDirectory = resolve(String(line.dropFirst("gitdir:".count)).trimmingCharacters(in: .whitespaces), against: packageDirectory)
        }
        let commonDirectory = firstLine(of: gitDirectory.appendingPathComponent("commondir"))
            .map { resolve($0, against: gitDirectory) } ?? gitDirectory
        let head = gitDirectory.appendingPathComponent("HEAD")
        files.append(head)
        if let line = firstLine(of: head), line.hasPrefix("ref:") {
            let ref = line.dropFirst("ref:".count).trimmingCharacters(in: .whitespaces)
            files.append(gitDirectory.appendingPathComponent(ref))
            files.append(commonDirectory.appendingPathComponent(ref))
        }
        files.append(commonDirectory.appendingPathComponent("packed-refs"))
        var seen = Set<String>()
        return files.filter { manager.fileExists(atPath: $0.path) && seen.insert($0.standardizedFileURL.path).inserted }
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
