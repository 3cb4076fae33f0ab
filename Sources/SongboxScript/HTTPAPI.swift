import SongboxAudio
import SongboxRemote

/// `songbox.http.request{method, url, headers, body, timeout, max_body}`: the sandbox's one way
/// out of the box, in a state only when the config grants its plugin hosts (`net.NAME = ...`);
/// any other state has no `songbox.http` at all.
///
/// A request waits on the calling thread: a daemon plugin's own (each plugin has one), never the
/// audio thread, the event thread or another plugin's. Events that arrive meanwhile wait in the
/// plugin's inbox, in order. Synchronous code is what an offline-first sender needs (write,
/// send, then mark sent, in that order, in one callback) and keeps Lua functions on the Lua
/// side; a callback API would hold Lua functions across calls and re-enter the state from
/// another thread's answer. The wait is bounded: `timeout` (at most 60 s) for one request, and
/// `callbackSeconds` for all the requests of one callback (the plugin's budget of waiting, as the
/// instruction budget is of work); the answer's body becomes a Lua string inside the plugin's
/// memory cap. A daemon that stops ends a request in flight.
enum HTTPAPI {
    static let defaultTimeout = 10.0
    static let longestTimeout = 60.0
    static let defaultBody = 1 << 20
    static let largestBody = 8 << 20
    static let largestRequestBody = 1 << 20
    /// Seconds one callback may wait on the network, all its requests together.
    static let callbackSeconds = 120.0
    static let keys: Set<String> = ["method", "url", "headers", "body", "timeout", "max_body"]

    /// What one callback has waited so far (`LuaRuntime.entries` tells callbacks apart).
    private final class Waited {
        var entry = -1
        var seconds = 0.0
    }

    static func install(on runtime: LuaRuntime, grant: NetworkGrant, client: GrantedHTTP) throws(LuaScriptError) {
        let waited = Waited()
        try runtime.register("http.request", writes: true) { [weak runtime] args in
            guard let runtime else { return [.nil, .string("songbox.http.request: the state is closing")] }
            var request = try Self.request(args)
            if waited.entry != runtime.entries {
                waited.entry = runtime.entries
                waited.seconds = 0
            }
            let left = callbackSeconds - waited.seconds
            guard left >= 1 else {
                return [.nil, .string("songbox.http.request: this callback has waited \(Int(callbackSeconds)) s on the network already, all a callback may; send the rest from a later one (songbox.after)")]
            }
            request.timeout = min(request.timeout, left)
            let interruption = runtime.interruption
            let started = MonotonicClock.seconds
            let result = client.perform(request, grant: grant) { interruption?.isRequested == true }
            waited.seconds += MonotonicClock.seconds - started
            switch result {
            case .success(let response):
                var headers: [String: LuaValue] = [:]
                for (name, value) in response.headers {
                    headers[name] = .string(headers[name]?.stringValue.map { $0 + ", " + value } ?? value)
                }
                return [.table(["status": .integer(response.status), "ok": .boolean((200...299).contains(response.status)),
                                "headers": .table(headers), "body": .bytes(response.body), "url": .string(response.url)])]
            case .failure(let failure):
                return [.nil, .string("songbox.http.request: " + failure.message)]
            }
        }
    }

    /// The request a script's table describes, every value checked.
    static func request(_ args: LuaArguments) throws(LuaFunctionError) -> GrantedRequest {
        guard let fields = try args.table(1).tableValue else {
            throw .argument(1, "a table such as { method = \"POST\", url = \"https://...\", body = \"...\" } expected")
        }
        if let unknown = fields.keys.sorted().first(where: { !keys.contains($0) }) {
            throw .argument(1, "unknown key '\(unknown)' (keys: body, headers, max_body, method, timeout, url)")
        }
        guard let url = fields["url"]?.stringValue else { throw .argument(1, "url must be a string") }
        var request = GrantedRequest(url: url, timeout: defaultTimeout, maximumBody: defaultBody)
        if let method = fields["method"] {
            guard let name = method.stringValue?.uppercased(), GrantedRequest.methods.contains(name) else {
                throw .argument(1, "method must be one of \(GrantedRequest.methods.sorted().joined(separator: ", "))")
            }
            request.method = name
        }
        if let headers = fields["headers"] {
            guard let table = headers.tableValue else { throw .argument(1, "headers must be a table of name = value") }
            for (name, value) in table.sorted(by: { $0.key < $1.key }) {
                let text: String
                switch value {
                case .string(let string): text = string
                case .integer(let number): text = String(number)
                default: throw .argument(1, "the header \(name) must be a string")
                }
                if let problem = GrantedRequest.headerProblem(name: name, value: text) { throw .argument(1, problem) }
                request.headers.append((name, text))
            }
        }
        if let body = fields["body"] {
            guard let text = body.stringValue else { throw .argument(1, "body must be a string") }
            guard text.utf8.count <= largestRequestBody else {
                throw .argument(1, "body is \(text.utf8.count) bytes, more than the \(largestRequestBody) a request may send")
            }
            request.body = Array(text.utf8)
        }
        if let timeout = fields["timeout"] {
            guard let seconds = timeout.doubleValue, seconds > 0, seconds <= longestTimeout else {
                throw .argument(1, "timeout must be seconds from 0 to \(Int(longestTimeout))")
            }
            request.timeout = seconds
        }
        if let limit = fields["max_body"] {
            guard let bytes = limit.intValue, bytes >= 0, bytes <= largestBody else {
                throw .argument(1, "max_body must be a whole number of bytes from 0 to \(largestBody)")
            }
            request.maximumBody = bytes
        }
        return request
    }
}
