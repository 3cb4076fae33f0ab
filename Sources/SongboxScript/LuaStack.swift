internal import CLuaShim

/// Reads values from a Lua stack. Uses only Lua calls that never raise (see luashim.h): strings are
/// read only when they are strings, tables are traversed raw, no metamethod runs.
struct LuaStackReader {
    let L: OpaquePointer

    func typeName(at index: Int32) -> String {
        String(cString: songbox_typename(L, songbox_type(L, index)))
    }

    func string(at index: Int32) -> String? {
        var length = 0
        guard let bytes = songbox_tostringbytes(L, index, &length) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    /// The value at `index`; the stack is left as it was, also when this throws.
    func value(at index: Int32) throws(LuaConversionError) -> LuaValue {
        var path: [UnsafeRawPointer] = []
        return try value(at: songbox_absindex(L, index), depth: 0, path: &path)
    }

    private func value(at index: Int32, depth: Int, path: inout [UnsafeRawPointer]) throws(LuaConversionError) -> LuaValue {
        switch songbox_type(L, index) {
        case LUA_TNIL, LUA_TNONE: return .nil
        case LUA_TBOOLEAN: return .boolean(songbox_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            if songbox_isinteger(L, index) != 0 { return .integer(Int(songbox_tointeger(L, index))) }
            return .number(songbox_tonumber(L, index))
        case LUA_TSTRING: return .string(string(at: index) ?? "")
        case LUA_TTABLE: return try table(at: index, depth: depth, path: &path)
        default:
            throw LuaConversionError(description: "cannot convert a \(typeName(at: index)) value")
        }
    }

    private func table(at index: Int32, depth: Int, path: inout [UnsafeRawPointer]) throws(LuaConversionError) -> LuaValue {
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
            let value = try self.value(at: top + 2, depth: depth + 1, path: &path)
            switch songbox_type(L, top + 1) {
            case LUA_TSTRING:
                fields[string(at: top + 1) ?? ""] = value
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
