import Foundation
import SongboxLibrary
import Synchronization

/// Library tracks as Lua tables, kept encoded between calls: each track's table in the bridge's
/// record form (`LuaRecords`) by id, and the list each query gave, both valid while the
/// database's change stamp (`StatementRunner.changeStamp()`) stays the same.
///
/// A call reads the stamp first and drops everything when it changed (a write by this store or
/// by any other connection), so nothing read before a change is used after it. A query asked
/// before (the same SQL and arguments, and no `random()`) gets its list again. Otherwise the call
/// gets the query's ids in order (`SELECT id`), reads the rows of ids it has no table for, and
/// sends the list of encoded tables. With nothing kept yet, it reads the query's rows in one pass
/// instead.
///
/// `Sendable`: one cache can serve every runtime of a process that reads the same store. It holds
/// every track read since the last change (about 500 bytes each).
public final class TrackTableCache: Sendable {
    private struct State {
        var stamp: StatementRunner.ChangeStamp?
        var records: [Int64: [UInt8]] = [:]
        /// The tables of each repeatable query, by its `SELECT id` statement, in order.
        var lists: [RowStatement: [[UInt8]]] = [:]
    }

    private let state = Mutex(State())
    /// How many queries' lists are remembered; past that, all are forgotten.
    static let rememberedQueries = 64

    public init() {}

    /// The tracks matching the query `text` (docs/query-language.md), as a list of Lua tables equal
    /// to `LibraryAPI.table` of each track. `evaluated`: the track ids of the function playlists
    /// it reaches (`ScriptPlaylistHost.evaluated(reachedBy:in:)`).
    public func tables(matching text: String, in store: LibraryStore, now: Date = Date(),
                       evaluated: [String: [Int64]] = [:]) throws(SongboxError) -> LuaValue {
        try tables(matching: LibraryQuery.parse(text, now: now), in: store, evaluated: evaluated)
    }

    public func tables(matching query: LibraryQuery, in store: LibraryStore, evaluated: [String: [Int64]] = [:]) throws(SongboxError) -> LuaValue {
        let stamp = try store.runner.changeStamp()  // first: a change after it shows in the next stamp
        let empty = state.withLock { state in
            if state.stamp != stamp { state = State(stamp: stamp) }
            return state.records.isEmpty
        }
        let records = try store.runner.readRaw { reader in
            empty ? try self.readAll(query, evaluated, stamp, reader) : try self.readKnown(query, evaluated, stamp, reader)
        }
        return .records(LuaRecords(keys: TrackRecords.keys, records: records))
    }

    /// Nothing kept: every row of the query, encoded and kept.
    private func readAll(_ query: LibraryQuery, _ evaluated: [String: [Int64]], _ stamp: StatementRunner.ChangeStamp,
                         _ reader: RawReader) throws -> [[UInt8]] {
        var ids: [Int64] = [], records: [[UInt8]] = []
        let writer = LuaRecordWriter()
        try reader.forEachRow(of: reader.statement(for: query, selecting: TrackRecords.columns, evaluated: evaluated)) { row in
            let (id, record) = TrackRecords.record(row, writer)
            ids.append(id)
            records.append(record)
        }
        let idStatement = try reader.statement(for: query, selecting: "id", evaluated: evaluated)
        state.withLock { state in
            guard state.stamp == stamp else { return }
            for (id, record) in zip(ids, records) { state.records[id] = record }
            remember(records, of: idStatement, in: &state)
        }
        return records
    }

    /// Some kept: the query's ids, the kept tables of those, and the rows of the others read by id.
    private func readKnown(_ query: LibraryQuery, _ evaluated: [String: [Int64]], _ stamp: StatementRunner.ChangeStamp,
                           _ reader: RawReader) throws -> [[UInt8]] {
        let idStatement = try reader.statement(for: query, selecting: "id", evaluated: evaluated)
        if idStatement.isRepeatable, let list = state.withLock({ state in state.stamp == stamp ? state.lists[idStatement] : nil }) {
            return list
        }
        let ids = try reader.integers(of: idStatement)
        var found = state.withLock { state in ids.map { state.records[$0] } }
        let missing = zip(ids, found).compactMap { id, record in record == nil ? id : nil }
        var read: [Int64: [UInt8]] = [:]
        if !missing.isEmpty {
            let writer = LuaRecordWriter()
            try reader.forEachRow(ids: Array(Set(missing)), selecting: TrackRecords.columns) { row in
                let (id, record) = TrackRecords.record(row, writer)
                read[id] = record
            }
            for index in found.indices where found[index] == nil { found[index] = read[ids[index]] }
        }
        // (An id whose row is gone was removed after the ids were read: it is left out.)
        let list = found.compactMap { $0 }, fresh = read
        state.withLock { state in
            guard state.stamp == stamp else { return }
            state.records.merge(fresh) { _, new in new }
            remember(list, of: idStatement, in: &state)
        }
        return list
    }

    private func remember(_ list: [[UInt8]], of statement: RowStatement, in state: inout State) {
        guard statement.isRepeatable else { return }
        if state.lists.count >= Self.rememberedQueries { state.lists.removeAll() }
        state.lists[statement] = list
    }
}

/// Tracks in the bridge's record form, straight from rows of `TrackField.all`'s columns: the
/// same keys, types and values as `LibraryAPI.table(track)` (nil fields absent).
enum TrackRecords {
    static let fields = TrackField.all
    static let keys = fields.map(\.name)
    /// The columns of the `library` view to select, in the order of `fields`.
    static let columns = fields.map(\.column).joined(separator: ", ")
    static let idColumn = Int32(fields.firstIndex { $0.name == "id" }!)
    private static let kinds = fields.map(\.kind)

    /// The row's id and its table.
    static func record(_ row: RawRow, _ writer: LuaRecordWriter) -> (id: Int64, record: [UInt8]) {
        for (index, kind) in kinds.enumerated() {
            let column = Int32(index), key = UInt8(index)
            if kind == .boolean {
                writer.boolean(key, row.double(column) != 0)  // NULL is false, as in `Track`
                continue
            }
            guard !row.isNull(column) else { continue }
            switch kind {
            case .text: writer.string(key, row.utf8(column))
            case .integer: writer.integer(key, row.int64(column))
            case .number: writer.number(key, row.double(column))
            case .duration: writer.number(key, FieldValue.duration(row.double(column)))
            case .date:
                let seconds = row.int64(column)
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: FieldValue.isoDateLength) { buffer in
                    if FieldValue.writeISODate(seconds, into: buffer) {
                        writer.string(key, UnsafeRawBufferPointer(buffer))
                    } else {
                        writer.string(key, FieldValue.isoDate(seconds))
                    }
                }
            case .boolean: break
            }
        }
        return (row.int64(idColumn), writer.finish())
    }
}
