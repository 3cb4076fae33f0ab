import Glibc

/// Where the running songbox is: the folder of `/proc/self/exe`, the real file (a symbolic link
/// followed, a command found on PATH as well as one run by its path). What it ships beside it
/// (catalogs, bundled plugins) is found from here, never from `argv[0]`.
public enum Executable {
    public static let folder: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return "." }
        let path = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }()
}
