/// A list of tables already in the bridge's byte form (luashim.h, `SONGBOX_TAG_RECORDS`): the
/// keys once, then each table as (key index, value) pairs. Lua receives it as an array of tables,
/// as it would the same `.array` of `.table`s, but nothing is encoded at the call and the shim
/// makes each key string once for the whole list. Library results are sent this way from
/// `TrackTableCache`, which keeps each track's encoded table between calls.
public struct LuaRecords: Sendable, Equatable {
    /// The key names the records' key indexes refer to (at most 255).
    public let keys: [String]
    /// Each table: a field count, then (key index, tagged value) pairs, as `LuaRecordWriter` writes them.
    let records: [[UInt8]]

    init(keys: [String], records: [[UInt8]]) {
        precondition(keys.count <= Int(UInt8.max), "at most 255 record keys")
        self.keys = keys
        self.records = records
    }

    public var count: Int { records.count }

    /// The tables as values (for Swift readers and tests; Lua gets the bytes).
    public var tables: [LuaValue] { records.map(table) }

    private func table(_ record: [UInt8]) -> LuaValue {
        var fields: [String: LuaValue] = [:]
        record.withUnsafeBytes { bytes in
            var at = 1
            func load<T>(_: T.Type) -> T {
                defer { at += MemoryLayout<T>.size }
                return bytes.loadUnaligned(fromByteOffset: at, as: T.self)
            }
            for _ in 0..<Int(bytes[0]) {
                let key = keys[Int(bytes[at])]
                let tag = bytes[at + 1]
                at += 2
                switch tag {
                case UInt8(ascii: "s"):
                    let length = Int(load(UInt32.self))
                    fields[key] = .string(String(decoding: bytes[at..<at + length], as: UTF8.self))
                    at += length
                case UInt8(ascii: "i"): fields[key] = .integer(Int(load(Int64.self)))
                case UInt8(ascii: "d"): fields[key] = .number(load(Double.self))
                case UInt8(ascii: "t"): fields[key] = .boolean(true)
                case UInt8(ascii: "f"): fields[key] = .boolean(false)
                default: preconditionFailure("LuaRecordWriter writes no tag \(tag)")
                }
            }
        }
        return .table(fields)
    }

    /// The tag, the keys and the count: what comes before the records.
    func encodeHeader(into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "r"))
        withUnsafeBytes(of: UInt32(keys.count)) { bytes.append(contentsOf: $0) }
        for key in keys {
            withUnsafeBytes(of: UInt32(key.utf8.count)) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: key.utf8)
        }
        withUnsafeBytes(of: UInt32(records.count)) { bytes.append(contentsOf: $0) }
    }

    func encode(into bytes: inout [UInt8]) {
        encodeHeader(into: &bytes)
        for record in records { bytes.append(contentsOf: record) }
    }
}

/// Writes records of a `LuaRecords`, one at a time: scalar fields, each under the index of its
/// key, into a scratch buffer it reuses; `finish` hands out each record's bytes.
final class LuaRecordWriter {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var length = 1  // byte 0: the field count, set by `finish`
    private var fields: UInt8 = 0

    init(capacity: Int = 1024) {
        self.capacity = capacity
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    func integer(_ key: UInt8, _ value: Int64) {
        head(key, "i", room: 8)
        base.storeBytes(of: value, toByteOffset: length, as: Int64.self)
        length += 8
    }

    func number(_ key: UInt8, _ value: Double) {
        head(key, "d", room: 8)
        base.storeBytes(of: value, toByteOffset: length, as: Double.self)
        length += 8
    }

    func boolean(_ key: UInt8, _ value: Bool) {
        head(key, value ? "t" : "f", room: 0)
    }

    /// Text as UTF-8 bytes (at most 4 GiB; longer text is cut, which no tag reaches).
    func string(_ key: UInt8, _ utf8: UnsafeRawBufferPointer) {
        let count = min(utf8.count, Int(UInt32.max))
        head(key, "s", room: 4 + count)
        base.storeBytes(of: UInt32(count), toByteOffset: length, as: UInt32.self)
        if count > 0, let bytes = utf8.baseAddress { (base + length + 4).copyMemory(from: bytes, byteCount: count) }
        length += 4 + count
    }

    func string(_ key: UInt8, _ text: String) {
        var text = text
        text.withUTF8 { string(key, UnsafeRawBufferPointer($0)) }
    }

    /// The bytes of the record written since the last `finish`; the writer starts the next one.
    func finish() -> [UInt8] {
        base.storeBytes(of: fields, as: UInt8.self)
        let record = [UInt8](UnsafeRawBufferPointer(start: base, count: length))
        length = 1
        fields = 0
        return record
    }

    /// Writes the key index and the tag, with room for `room` more bytes after them.
    private func head(_ key: UInt8, _ tag: Unicode.Scalar, room: Int) {
        precondition(fields < UInt8.max, "at most 255 fields in a record")
        if length + 2 + room > capacity {
            var grown = capacity * 2
            while length + 2 + room > grown { grown *= 2 }
            let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
            larger.copyMemory(from: base, byteCount: length)
            base.deallocate()
            base = larger
            capacity = grown
        }
        fields += 1
        base.storeBytes(of: key, toByteOffset: length, as: UInt8.self)
        base.storeBytes(of: UInt8(ascii: tag), toByteOffset: length + 1, as: UInt8.self)
        length += 2
    }
}
