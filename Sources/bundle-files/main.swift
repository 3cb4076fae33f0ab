import Foundation

// bundle-files OUTPUT FILE...: writes OUTPUT, a Swift file holding each FILE's name and bytes
// (base64, which compiles fast), for the BundleFiles build plugin. Rewritten only when it
// changes, so an unchanged folder compiles nothing again.
let arguments = Array(CommandLine.arguments.dropFirst())
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: bundle-files OUTPUT FILE...\n".utf8))
    exit(2)
}
var source = """
    // Made at build time by bundle-files from a folder of the package: do not edit.

    /// The files of the bundled folder when songbox was built: name and bytes (base64).
    let bundledFiles: [(name: String, base64: String)] = [

    """
for path in arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("bundle-files: cannot read \(path)\n".utf8))
        exit(1)
    }
    let name = (path as NSString).lastPathComponent
    source += "    (\"\(name)\", \"\(data.base64EncodedString())\"),\n"
}
source += "]\n"
if FileManager.default.contents(atPath: output) != Data(source.utf8) {
    do { try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
        FileHandle.standardError.write(Data("bundle-files: cannot write \(output): \(error)\n".utf8))
        exit(1)
    }
}
