internal import CLuaShim

/// Reads values from a Lua stack. Uses only Lua calls that never raise (see luashim.h): strings are
/// read only when they are strings, tables are traversed raw, no metamethod runs.
public struct LuaStackReader {
    let L: OpaquePointer

    func typeName(at index: Int32) -> String {
        String(cString: songbox_typename(L, songbox_type(L, index)))
    }

    /// The string at `index`, bytes that are not UTF-8 shown as U+FFFD (for messages).
    func string(at index: Int32) -> String? {
        var length = 0
        guard let bytes = songbox_tostringbytes(L, index, &length) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    /// The string at `index` as text songbox takes: UTF-8, or an error. Replacing bad bytes
    /// would make two different Lua strings one (`"caf\xe9"` and `"caf\xe8"` as table keys).
    func text(at index: Int32) throws(LuaConversionError) -> String {
        var length = 0
        guard let bytes = songbox_tostringbytes(L, index, &length) else { return "" }
        guard let text = String(validating: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self) else {
            throw LuaConversionError(description: "a string that is not valid UTF-8 (songbox takes text as UTF-8)")
        }
        return text
    }

    /// What one conversion may produce: a table that shares sub-tables (`t = {t, t}`, 24 times)
    /// is small in Lua and a tree of millions of nodes in Swift, so every value and every string
    /// byte is counted as it is made, shared or not, and a conversion over the bound stops at
    /// once with a clear error (docs/lua-api.md, "Limits").
    struct Budget {
        static let values = 250_000
        static let bytes = 64 << 20
        var values = 0
        var bytes = 0

        mutating func charge(values count: Int = 1, bytes length: Int = 0) throws(LuaConversionError) {
            values += count
            bytes += length
            if values > Self.values {
                throw LuaConversionError(description: "value too large to convert (over \(Self.values) values; shared tables count each time they appear)")
            }
            if bytes > Self.bytes {
                throw LuaConversionError(description: "value too large to convert (over \(Self.bytes >> 20) MiB of text; shared strings count each time they appear)")
            }
        }
    }

    /// The track ids in the list at `index` (ids, or tables with an integer `id` or `track_id`),
    /// read in place: a list of 30,000 full track tables is not converted field by field (it
    /// would be a million values) just to take one field of each. Nil when it is not such a list;
    /// the index in the list of the first item that is neither, as the error.
    public struct BadItem: Error {
        public let position: Int
        public let type: String
    }

    func trackIDs(at index: Int32) -> Result<[Int64], BadItem>? {
        let list = songbox_absindex(L, index)
        guard songbox_type(L, list) == LUA_TTABLE, songbox_checkstack(L, 4) != 0 else { return nil }
        let top = songbox_gettop(L)
        defer { songbox_settop(L, top) }
        let count = songbox_rawlen(L, list)
        if count == 0 {  // empty, or a table that is no list (a single track): not a list
            songbox_pushnil(L)
            if songbox_next(L, list) != 0 { return nil }
        }
        var ids: [Int64] = []
        ids.reserveCapacity(Int(min(count, 1 << 20)))
        for position in 0..<Int(count) {
            songbox_settop(L, top)
            _ = songbox_rawgeti(L, list, Int64(position + 1))
            guard let id = trackID(at: top + 1) else { return .failure(BadItem(position: position + 1, type: typeName(at: top + 1))) }
            ids.append(id)
        }
        return .success(ids)
    }

    /// An integer within ±2^53 at `index`, or the `id` (else `track_id`) field of a table there.
    func trackID(at index: Int32) -> Int64? {
        func integer(_ at: Int32) -> Int64? {
            guard songbox_type(L, at) == LUA_TNUMBER else { return nil }
            let value: LuaValue = songbox_isinteger(L, at) != 0 ? .integer(Int(songbox_tointeger(L, at))) : .number(songbox_tonumber(L, at))
            return value.intValue.map(Int64.init)
        }
        if let id = integer(index) { return id }
        guard songbox_type(L, index) == LUA_TTABLE else { return nil }
        var found: (id: Int64?, trackID: Int64?) = (nil, nil)
        let top = songbox_gettop(L)
        songbox_pushnil(L)
        while songbox_next(L, index) != 0 {  // key at top + 1, value at top + 2
            var length = 0
            if songbox_type(L, top + 1) == LUA_TSTRING, let bytes = songbox_tostringbytes(L, top + 1, &length) {
                let key = UnsafeRawBufferPointer(start: bytes, count: length)
                if key.elementsEqual("id".utf8) { found.id = integer(top + 2) }
                if key.elementsEqual("track_id".utf8) { found.trackID = integer(top + 2) }
            }
            songbox_pop(L, 1)
        }
        songbox_settop(L, top)
        return found.id ?? found.trackID
    }

    /// The value at `index`; the stack is left as it was, also when this throws.
    func value(at index: Int32) throws(LuaConversionError) -> LuaValue {
        var path: [UnsafeRawPointer] = []
        var budget = Budget()
        return try value(at: songbox_absindex(L, index), depth: 0, path: &path, budget: &budget)
    }

    private func value(at index: Int32, depth: Int, path: inout [UnsafeRawPointer],
                       budget: inout Budget) throws(LuaConversionError) -> LuaValue {
        try budget.charge()
        switch songbox_type(L, index) {
        case LUA_TNIL, LUA_TNONE: return .nil
        case LUA_TBOOLEAN: return .boolean(songbox_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            if songbox_isinteger(L, index) != 0 { return .integer(Int(songbox_tointeger(L, index))) }
            return .number(songbox_tonumber(L, index))
        case LUA_TSTRING:
            let text = try text(at: index)
            try budget.charge(values: 0, bytes: text.utf8.count)
            return .string(text)
        case LUA_TTABLE: return try table(at: index, depth: depth, path: &path, budget: &budget)
        default:
            throw LuaConversionError(description: "cannot convert a \(typeName(at: index)) value")
        }
    }

    private func table(at index: Int32, depth: Int, path: inout [UnsafeRawPointer],
                       budget: inout Budget) throws(LuaConversionError) -> LuaValue {
        guard depth < LuaValue.maximumDepth else {
            throw LuaConversionError(description: "table nested deeper than \(LuaValue.maximumDepth) levels")
        }
        guard let identity = songbox_topointer(L, index) else { return .nil }
        guard !path.contains(identity) else { throw LuaConversionError(description: "table contains a cycle") }
        guard songbox_checkstack(L, 3) != 0 else { throw LuaConversionError(description: "Lua stack exhausted") }
        path.append(identity)
        let top = songbox_gettop(L)
        defer {
            songbox_settop(L, top)
            path.removeLast()
        }
        var elements: [Int: LuaValue] = [:]
        var fields: [String: LuaValue] = [:]
        songbox_pushnil(L)
        while songbox_next(L, index) != 0 {  // key at -2, value at -1
            let value = try self.value(at: top + 2, depth: depth + 1, path: &path, budget: &budget)
            switch songbox_type(L, top + 1) {
            case LUA_TSTRING:
                let key = try text(at: top + 1)
                try budget.charge(values: 0, bytes: key.utf8.count)
                fields[key] = value
            case LUA_TNUMBER where songbox_isinteger(L, top + 1) != 0 && songbox_tointeger(L, top + 1) > 0:
                elements[Int(songbox_tointeger(L, top + 1))] = value
            default:
                throw LuaConversionError(description: "cannot convert a table with a \(typeName(at: top + 1)) key")
            }
            songbox_pop(L, 1)
        }
        if elements.isEmpty { return .table(fields) }
        guard fields.isEmpty else {
            throw LuaConversionError(description: "cannot convert a table with both array items and string keys")
        }
        let last = elements.keys.max() ?? 0
        guard last <= 2 * elements.count + 8 else {
            throw LuaConversionError(description: "cannot convert a sparse array (\(elements.count) items up to index \(last))")
        }
        return .array((1...last).map { elements[$0] ?? .nil })
    }
}
