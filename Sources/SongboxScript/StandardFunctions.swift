import Logging
import SongboxAudio
import SongboxLibrary
import SongboxRemote
internal import CLuaShim

extension LuaRuntime {
    /// The functions every state has: songbox.log.*, songbox.json.*, songbox.dry_run.
    func registerStandardFunctions() throws(LuaScriptError) {
        for (name, level) in [("debug", Logger.Level.debug), ("info", .info), ("warn", .warning), ("error", .error)] {
            // Arguments arrive as (message, "file:line"): the trampoline formats them in C.
            try register(HostFunction(name: "log." + name, writes: false, flags: Int32(SONGBOX_FUNCTION_MESSAGE)) { [logger = bridge.logger] args in
                // A log line takes any bytes (shown with U+FFFD): logging must not fail.
                let message = args.message(1), location = args.message(2)
                logger.log(level: level, "\(message)", metadata: ["script": "\(location)"])
                return []
            })
        }
        // `songbox.exit([status])`: the run ends once the running function returns (the main
        // chunk, a handler, a timer), whatever timers are left; `songbox run` exits with `status`.
        try register("exit") { [weak self] args in
            let status = try args.optionalInteger(1) ?? 0
            guard (0...255).contains(status) else { throw LuaFunctionError.argument(1, "exit status must be from 0 to 255") }
            self?.exitRequested = self?.exitRequested ?? status
            return []
        }
        // `songbox.monotonic()`: seconds on a clock that never jumps (boot is zero), the clock of
        // events' `emitted_at`: how long an event took to reach its handler, how long work took.
        try register("monotonic") { _ in [.number(MonotonicClock.seconds)] }
        // `songbox.subscribe(channel)` / `unsubscribe`: a plugin listens on an MPD channel, so
        // clients see it in `channels` (every message reaches every plugin's "message" handlers).
        for (name, on) in [("subscribe", true), ("unsubscribe", false)] {
            try register(name) { [weak self] args in
                let channel = try args.string(1)
                guard !channel.isEmpty, channel.count <= 255, channel.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) }) else {
                    throw LuaFunctionError.argument(1, "a channel name is letters, digits and - _ . : (up to 255)")
                }
                guard let self, let subscriptions = self.subscriptions else {
                    return [.nil, .string("songbox.\(name): messages reach the plugins of a running daemon only")]
                }
                let changed = on ? self.channels.insert(channel).inserted : self.channels.remove(channel) != nil
                if changed { subscriptions(self.channels) }
                return [.boolean(changed)]
            }
        }
        try register("json.encode") { args in
            if args.count < 1 { throw LuaFunctionError.type(1, expected: "value") }
            let options = try args.optionalTable(2)?.tableValue ?? [:]
            let value: LuaValue
            do throws(LuaFunctionError) { value = try args.value(1) } catch { return [.nil, .string(Self.reason(error))] }
            do throws(LuaJSON.Failure) {
                return [.string(try LuaJSON.encode(value, pretty: options["pretty"]?.boolValue ?? false))]
            } catch {
                return [.nil, .string(error.description)]
            }
        }
        // `songbox.text`: widths in a terminal's columns (Hebrew points take none, wide
        // characters two), so a script that prints a table lines it up.
        try register("text.width") { args in [.integer(TextWidth.of(try args.string(1)))] }
        try register("text.pad") { args in
            let text = try args.string(1), columns = try args.integer(2)
            guard (0...10_000).contains(columns) else { throw LuaFunctionError.argument(2, "columns must be from 0 to 10000") }
            let align = try args.optionalString(3) ?? "left"
            guard align == "left" || align == "right" else { throw LuaFunctionError.argument(3, "expected \"left\" or \"right\"") }
            return [.string(TextWidth.pad(text, to: columns, rightAligned: align == "right"))]
        }
        try register("text.truncate") { args in
            let text = try args.string(1), columns = try args.integer(2)
            guard (1...10_000).contains(columns) else { throw LuaFunctionError.argument(2, "columns must be from 1 to 10000") }
            return [.string(TextWidth.truncate(text, to: columns))]
        }
        // `songbox.hash.md5(text)`: 32 hex digits, for services that sign requests with it
        // (Last.fm); in C-speed Swift, where Lua's would cost a plugin thousands of instructions.
        try register("hash.md5") { args in
            [.string(MD5.hex(try args.bytes(1)))]
        }
        try register("json.decode") { args in
            let text = try args.string(1)
            do throws(LuaJSON.Failure) { return [try LuaJSON.decode(text)] } catch { return [.nil, .string(error.description)] }
        }
        try set("dry_run", to: .boolean(dryRun))
        try set("args", to: .array([]))
        try set("options", to: .table([:]))
    }

    private static func reason(_ error: LuaFunctionError) -> String {
        switch error {
        case .message(let text), .argument(_, let text): text
        case .type(_, let expected): "\(expected) expected"
        }
    }

    /// Sets `songbox.args`, the command-line arguments of `songbox run`.
    public func setArguments(_ arguments: [String]) throws(LuaScriptError) {
        try set("args", to: .array(arguments.map { .string($0) }))
    }

    /// Sets `songbox.options`, the script's or plugin's settings.
    public func setOptions(_ options: [String: LuaValue]) throws(LuaScriptError) {
        try set("options", to: .table(options))
    }

    /// Sets `songbox.options` from the config file's text values: integers, numbers and
    /// true/false become those; "quoted" text loses its quotes; the rest is text.
    public func setOptions(fromConfig options: [String: String]) throws(LuaScriptError) {
        try setOptions(options.mapValues(LuaValue.init(configText:)))
    }
}
