import Foundation
import HTTPTypes
import Hummingbird

/// The pages' files (the package's `web/` folder, compiled in by `BundleFiles`): served as they
/// are, each with its type; `/` is the app, `/login` its login page.
enum WebFiles {
    struct File: Sendable {
        let bytes: ByteBuffer
        let type: String
    }

    static let files: [String: File] = Dictionary(uniqueKeysWithValues: bundledFiles.compactMap { name, base64 in
        Data(base64Encoded: base64).map { (name, File(bytes: ByteBuffer(bytes: $0), type: type(of: name))) }
    })

    static func type(of name: String) -> String {
        switch (name as NSString).pathExtension {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json": "application/json; charset=utf-8"
        default: "application/octet-stream"
        }
    }

    static func add(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in response("index.html") }
        router.get("/login") { _, _ in response("login.html") }
        router.get("/:file") { _, context in response(context.parameters.get("file") ?? "") }
    }

    static func response(_ name: String) -> Response {
        guard let file = files[name] else {
            return WebAnswer.error(.notFound, code: "not-found", "no such page")
        }
        // Asked again each time (a new songbox brings new pages), answered from memory.
        return Response(status: .ok, headers: [.contentType: file.type, .cacheControl: "no-cache"], body: ResponseBody(byteBuffer: file.bytes))
    }
}
