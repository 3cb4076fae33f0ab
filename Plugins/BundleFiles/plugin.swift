import Foundation
import PackagePlugin

/// Compiles a folder of the package into the target that uses it, as `BundledFiles.swift`, so
/// that a copied `songbox` binary is complete: `web/` (the web app's pages) into SongboxWeb,
/// `plugins/` (the bundled Lua plugins and the alarm tone) into the others. Run at build time
/// by `bundle-files`; the folder's files are its inputs, so an edit
/// to one of them builds again.
@main
struct BundleFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: target.name == "SongboxWeb" ? "web" : "plugins")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "BundledFiles.swift")
        return [.buildCommand(displayName: "Bundling \(folder.lastPathComponent)/ into \(target.name)",
                              executable: try context.tool(named: "bundle-files").url,
                              arguments: [output.path] + files.map(\.path),
                              inputFiles: files, outputFiles: [output])]
    }
}
