internal import CLuaShim

/// How a host function fails. The trampoline in the shim raises it as a Lua error after the
/// Swift frame has returned.
public enum LuaFunctionError: Error, Sendable {
    /// A Lua error with this message (the caller's file:line is added).
    case message(String)
    /// `bad argument #N to 'name' (message)`.
    case argument(Int, String)
    /// `bad argument #N to 'name' (EXPECTED expected, got TYPE)`.
    case type(Int, expected: String)
}

/// The arguments of a host function call, read from the Lua stack without raising. Valid only
/// during the call: do not keep it.
public struct LuaArguments {
    let reader: LuaStackReader
    /// How many arguments the caller passed.
    public let count: Int

    init(L: OpaquePointer, count: Int) {
        reader = LuaStackReader(L: L)
        self.count = count
    }

    /// Whether argument `n` (1-based) is absent or nil.
    public func isNil(_ n: Int) -> Bool {
        n > count || songbox_type(reader.L, Int32(n)) == LUA_TNIL
    }

    /// Lua's type name of argument `n` ("no value" when absent).
    public func typeName(_ n: Int) -> String {
        n > count ? "no value" : reader.typeName(at: Int32(n))
    }

    /// Argument `n` as a value (any convertible type, nil included).
    public func value(_ n: Int) throws(LuaFunctionError) -> LuaValue {
        guard n <= count else { return .nil }
        do { return try reader.value(at: Int32(n)) } catch { throw .argument(n, error.description) }
    }

    /// Argument `n` as a string (numbers are converted, as luaL_checkstring does).
    public func string(_ n: Int) throws(LuaFunctionError) -> String {
        guard n <= count else { throw .type(n, expected: "string") }
        switch songbox_type(reader.L, Int32(n)) {
        case LUA_TSTRING:
            do { return try reader.text(at: Int32(n)) } catch { throw .argument(n, "string is not valid UTF-8 (songbox takes text as UTF-8)") }
        case LUA_TNUMBER:
            if songbox_isinteger(reader.L, Int32(n)) != 0 { return String(songbox_tointeger(reader.L, Int32(n))) }
            return LuaJSON.formatNumber(songbox_tonumber(reader.L, Int32(n)))
        default: throw .type(n, expected: "string")
        }
    }

    /// Argument `n`, a string, as its bytes (any bytes, UTF-8 or not).
    public func bytes(_ n: Int) throws(LuaFunctionError) -> [UInt8] {
        guard n <= count, songbox_type(reader.L, Int32(n)) == LUA_TSTRING else { throw .type(n, expected: "string") }
        var length = 0
        guard let bytes = songbox_tostringbytes(reader.L, Int32(n), &length) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// Argument `n` as text for a message: bytes that are not UTF-8 shown as U+FFFD.
    public func message(_ n: Int) -> String {
        n <= count ? reader.string(at: Int32(n)) ?? "" : ""
    }

    public func optionalString(_ n: Int) throws(LuaFunctionError) -> String? {
        isNil(n) ? nil : try string(n)
    }

    /// Argument `n` as an integer (floats with an exact integer value are accepted, as in Lua).
    /// Within ±2^53 (`LuaValue.largestSafeNumber`): larger ones (`math.mininteger`) are refused.
    public func integer(_ n: Int) throws(LuaFunctionError) -> Int {
        let value = try numberValue(n)
        if let integer = value.intValue { return integer }
        if case .number(let d) = value, d.isFinite, d.rounded() != d { throw .argument(n, "number has no integer representation") }
        throw .argument(n, "integer out of range (at most 2^53 in size)")
    }

    private func numberValue(_ n: Int) throws(LuaFunctionError) -> LuaValue {
        guard n <= count, songbox_type(reader.L, Int32(n)) == LUA_TNUMBER else { throw .type(n, expected: "number") }
        if songbox_isinteger(reader.L, Int32(n)) != 0 { return .integer(Int(songbox_tointeger(reader.L, Int32(n)))) }
        return .number(songbox_tonumber(reader.L, Int32(n)))
    }

    public func optionalInteger(_ n: Int) throws(LuaFunctionError) -> Int? {
        isNil(n) ? nil : try integer(n)
    }

    /// Finite and within ±2^53: NaN, ±infinity and 1e300 are refused, never converted.
    public func number(_ n: Int) throws(LuaFunctionError) -> Double {
        let value = try numberValue(n)
        if let number = value.doubleValue { return number }
        if case .number(let d) = value, !d.isFinite { throw .argument(n, "number must be finite, got \(LuaJSON.formatNumber(d))") }
        throw .argument(n, "number out of range (at most 2^53 in size)")
    }

    /// A number of seconds from 0 to `limit` (a duration, a delay, a position in a track).
    public func seconds(_ n: Int, limit: Double) throws(LuaFunctionError) -> Double {
        let seconds = try number(n)
        guard seconds >= 0, seconds <= limit else {
            throw .argument(n, "seconds must be from 0 to \(LuaJSON.formatNumber(limit)), got \(LuaJSON.formatNumber(seconds))")
        }
        return seconds
    }

    public func boolean(_ n: Int) throws(LuaFunctionError) -> Bool {
        guard n <= count, songbox_type(reader.L, Int32(n)) == LUA_TBOOLEAN else { throw .type(n, expected: "boolean") }
        return songbox_toboolean(reader.L, Int32(n)) != 0
    }

    /// Argument `n`, which must be a table, converted.
    public func table(_ n: Int) throws(LuaFunctionError) -> LuaValue {
        guard n <= count, songbox_type(reader.L, Int32(n)) == LUA_TTABLE else { throw .type(n, expected: "table") }
        return try value(n)
    }

    /// Argument `n` as one track id: an id, or a table with an integer `id` (else `track_id`).
    public func trackID(_ n: Int) -> Int64? {
        n <= count ? reader.trackID(at: Int32(n)) : nil
    }

    /// Argument `n` as a list of track ids (ids or track tables), read in place without
    /// converting whole track tables; nil when it is not a table, the first bad item (its place
    /// and type) as the failure.
    public func trackIDList(_ n: Int) -> Result<[Int64], LuaStackReader.BadItem>? {
        n <= count ? reader.trackIDs(at: Int32(n)) : nil
    }

    public func optionalTable(_ n: Int) throws(LuaFunctionError) -> LuaValue? {
        // Not `isNil(n) ? nil : ...`: LuaValue is ExpressibleByNilLiteral, so that `nil` would be
        // `.some(.nil)`.
        if isNil(n) { return nil }
        return try table(n)
    }
}

/// A Swift function callable from Lua.
public struct HostFunction {
    public typealias Body = (LuaArguments) throws -> [LuaValue]
    /// The dotted name under `songbox` ("json.encode").
    public let name: String
    /// A writing function is refused in a dry run.
    public let writes: Bool
    let flags: Int32
    let body: Body
}
