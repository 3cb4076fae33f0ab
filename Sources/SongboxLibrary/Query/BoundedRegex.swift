import Foundation
import GRDB
import Synchronization

/// A regular expression that cannot run away: compiled to a Thompson NFA and run as a Pike VM,
/// so a match costs at most (text length × program size) steps whatever the pattern (no
/// backtracking: `(a*)*b` on a long run of `a` is as fast as `ab`). The pattern, its program
/// and the text it reads are bounded, and a match that would take more steps than `stepLimit`
/// fails. What MPD clients send (`=~`, `!~`: PCRE) in the common subset: literals, `.`,
/// classes (`[a-z]`, `[^0-9]`, `\d \w \s` and their negations), anchors `^ $`, groups
/// (`(...)`, `(?:...)`), `|`, and `* + ? {n} {n,} {n,m}` (greedy or lazy: only whether it
/// matches counts). Back-references and look-arounds are refused. Matching ignores case.
public struct BoundedRegex: Sendable {
    public static let patternLimit = 1024
    public static let programLimit = 20_000
    public static let textLimit = 64 << 10
    public static let stepLimit = 20_000_000

    enum Instruction: Sendable {
        case scalar(UInt32)
        case any
        case set([ClosedRange<UInt32>], negated: Bool)
        case split(Int, Int)
        case jump(Int)
        case lineStart, lineEnd
        case match
    }

    let program: [Instruction]

    /// Why a pattern was refused.
    public struct Failure: Error, Sendable {
        public let message: String
    }

    public init(_ pattern: String) throws(Failure) {
        guard pattern.unicodeScalars.count <= Self.patternLimit else {
            throw Failure(message: "regular expression too long (at most \(Self.patternLimit) characters)")
        }
        var parser = Parser(scalars: Array(pattern.unicodeScalars))
        let node = try parser.alternation()
        guard parser.index == parser.scalars.count else { throw Failure(message: "unmatched ) in regular expression") }
        var compiler = Compiler()
        try compiler.emit(node)
        compiler.program.append(.match)
        program = compiler.program
    }

    /// Whether the pattern matches anywhere in `text` (ignoring case).
    public func matches(_ text: String) -> Bool {
        let scalars = text.unicodeScalars.prefix(Self.textLimit).map { Self.fold($0.value) }
        var current = Threads(count: program.count), next = Threads(count: program.count)
        var steps = 0
        for position in 0...scalars.count {
            // Unanchored: a thread starts at every position.
            if add(0, at: position, of: scalars, to: &current, steps: &steps) { return true }
            guard position < scalars.count else { break }
            let scalar = scalars[position]
            next.clear()
            for pc in current.list {
                steps += 1
                let advances: Bool
                switch program[pc] {
                case .scalar(let wanted): advances = wanted == scalar
                case .any: advances = scalar != 0x0A
                case .set(let ranges, let negated): advances = Self.inSet(scalar, ranges) != negated
                default: advances = false
                }
                if advances, add(pc + 1, at: position + 1, of: scalars, to: &next, steps: &steps) { return true }
            }
            guard steps < Self.stepLimit else { return false }
            swap(&current, &next)
        }
        return false
    }

    /// Adds the thread at `pc` and those it reaches without reading; true when one matches.
    private func add(_ pc: Int, at position: Int, of text: [UInt32], to threads: inout Threads, steps: inout Int) -> Bool {
        var stack = [pc]
        while let pc = stack.popLast() {
            guard threads.insert(pc) else { continue }
            steps += 1
            switch program[pc] {
            case .match: return true
            case .jump(let target): stack.append(target)
            case .split(let first, let second): stack.append(second); stack.append(first)
            case .lineStart: if position == 0 { stack.append(pc + 1) }
            case .lineEnd: if position == text.count { stack.append(pc + 1) }
            default: threads.list.append(pc)
            }
        }
        return false
    }

    private static func inSet(_ scalar: UInt32, _ ranges: [ClosedRange<UInt32>]) -> Bool {
        if ranges.contains(where: { $0.contains(scalar) }) { return true }
        // The text is folded to lower case: an upper-case range matches its lower-case letters.
        let upper = Self.upper(scalar)
        return upper != scalar && ranges.contains { $0.contains(upper) }
    }

    static func fold(_ value: UInt32) -> UInt32 {
        guard let scalar = Unicode.Scalar(value) else { return value }
        if value < 0x80 { return (0x41...0x5A).contains(value) ? value + 0x20 : value }
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower.first!.value : value
    }

    private static func upper(_ value: UInt32) -> UInt32 {
        if value < 0x80 { return (0x61...0x7A).contains(value) ? value - 0x20 : value }
        guard let scalar = Unicode.Scalar(value) else { return value }
        let upper = scalar.properties.uppercaseMapping.unicodeScalars
        return upper.count == 1 ? upper.first!.value : value
    }

    /// The threads at one position: each program counter once, in order.
    private struct Threads {
        var list: [Int] = []
        /// Every counter passed at this position (jumps and splits too), to unmark.
        private var marked: [Int] = []
        private var seen: [Bool]
        init(count: Int) { seen = Array(repeating: false, count: count) }
        mutating func insert(_ pc: Int) -> Bool {
            if seen[pc] { return false }
            seen[pc] = true
            marked.append(pc)
            return true
        }
        mutating func clear() {
            for pc in marked { seen[pc] = false }
            marked.removeAll(keepingCapacity: true)
            list.removeAll(keepingCapacity: true)
        }
    }

    // MARK: Parsing

    indirect enum Node {
        case empty
        case scalar(UInt32)
        case any
        case set([ClosedRange<UInt32>], negated: Bool)
        case lineStart, lineEnd
        case sequence([Node])
        case choice([Node])
        case repeated(Node, min: Int, max: Int?)
    }

    struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0
        var depth = 0

        func failure(_ message: String) -> Failure { Failure(message: message + " in regular expression") }

        mutating func alternation() throws(Failure) -> Node {
            depth += 1
            defer { depth -= 1 }
            guard depth < 100 else { throw failure("too deeply nested groups") }
            var branches = [try sequence()]
            while index < scalars.count, scalars[index] == "|" {
                index += 1
                branches.append(try sequence())
            }
            return branches.count == 1 ? branches[0] : .choice(branches)
        }

        mutating func sequence() throws(Failure) -> Node {
            var items: [Node] = []
            while index < scalars.count, scalars[index] != "|", scalars[index] != ")" {
                var atom = try self.atom()
                while let (min, max) = try quantifier() {
                    if case .lineStart = atom { throw failure("nothing to repeat") }
                    atom = .repeated(atom, min: min, max: max)
                }
                items.append(atom)
            }
            return items.count == 1 ? items[0] : .sequence(items)
        }

        mutating func atom() throws(Failure) -> Node {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case ".": return .any
            case "^": return .lineStart
            case "$": return .lineEnd
            case "[": return try set()
            case "(":
                if index < scalars.count, scalars[index] == "?" {
                    guard index + 1 < scalars.count, scalars[index + 1] == ":" else {
                        throw failure("look-arounds and (?...) options are not supported")
                    }
                    index += 2
                }
                let inner = try alternation()
                guard index < scalars.count, scalars[index] == ")" else { throw failure("missing )") }
                index += 1
                return inner
            case "*", "+", "?", "{": throw failure("nothing to repeat")
            case "\\": return try escape(inSet: false)
            default: return .scalar(BoundedRegex.fold(scalar.value))
            }
        }

        mutating func escape(inSet: Bool) throws(Failure) -> Node {
            guard index < scalars.count else { throw failure("\\ at the end") }
            let scalar = scalars[index]
            index += 1
            let digits: [ClosedRange<UInt32>] = [0x30...0x39]
            let word: [ClosedRange<UInt32>] = [0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F...0x5F]
            let space: [ClosedRange<UInt32>] = [0x09...0x0D, 0x20...0x20]
            switch scalar {
            case "d": return .set(digits, negated: false)
            case "w": return .set(word, negated: false)
            case "s": return .set(space, negated: false)
            case "D", "W", "S":
                guard !inSet else { throw failure("\\\(scalar) inside [...] is not supported") }
                return .set(scalar == "D" ? digits : scalar == "W" ? word : space, negated: true)
            case "t": return .scalar(0x09)
            case "n": return .scalar(0x0A)
            case "r": return .scalar(0x0D)
            default:
                guard !(scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) else {
                    throw failure("\\\(scalar) is not supported")
                }
                return .scalar(BoundedRegex.fold(scalar.value))
            }
        }

        mutating func set() throws(Failure) -> Node {
            var negated = false
            if index < scalars.count, scalars[index] == "^" { negated = true; index += 1 }
            var ranges: [ClosedRange<UInt32>] = []
            var first = true
            while true {
                guard index < scalars.count else { throw failure("missing ]") }
                let scalar = scalars[index]
                if scalar == "]", !first { index += 1; break }
                first = false
                index += 1
                var low: UInt32
                if scalar == "\\" {
                    switch try escape(inSet: true) {
                    case .scalar(let value): low = value
                    case .set(let more, _): ranges += more; continue
                    default: throw failure("bad escape in [...]")
                    }
                } else {
                    low = scalar.value
                }
                if index + 1 < scalars.count, scalars[index] == "-", scalars[index + 1] != "]" {
                    var high = scalars[index + 1].value
                    index += 2
                    if high == 0x5C {
                        guard case .scalar(let value) = try escape(inSet: true) else { throw failure("bad range in [...]") }
                        high = value
                    }
                    guard low <= high else { throw failure("range out of order in [...]") }
                    ranges.append(low...high)
                } else {
                    low = BoundedRegex.fold(low)
                    ranges.append(low...low)
                }
            }
            return .set(ranges, negated: negated)
        }

        /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (a lazy `?` after one is read and changes nothing).
        mutating func quantifier() throws(Failure) -> (Int, Int?)? {
            guard index < scalars.count else { return nil }
            var result: (Int, Int?)
            switch scalars[index] {
            case "*": result = (0, nil); index += 1
            case "+": result = (1, nil); index += 1
            case "?": result = (0, 1); index += 1
            case "{":
                var end = index + 1
                while end < scalars.count, scalars[end] != "}" { end += 1 }
                guard end < scalars.count else { return nil }
                let inside = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
                let parts = inside.split(separator: ",", omittingEmptySubsequences: false)
                guard (1...2).contains(parts.count), let min = Int(parts[0]), min <= 1000 else {
                    throw failure("bad repetition {\(inside)}")
                }
                var max: Int? = min
                if parts.count == 2 {
                    if parts[1].isEmpty { max = nil } else {
                        guard let value = Int(parts[1]), value >= min, value <= 1000 else { throw failure("bad repetition {\(inside)}") }
                        max = value
                    }
                }
                result = (min, max)
                index = end + 1
            default: return nil
            }
            if index < scalars.count, scalars[index] == "?" || scalars[index] == "+" { index += 1 }
            return result
        }
    }

    // MARK: Compiling

    struct Compiler {
        var program: [Instruction] = []

        mutating func append(_ instruction: Instruction) throws(Failure) {
            guard program.count < BoundedRegex.programLimit else { throw Failure(message: "regular expression too large") }
            program.append(instruction)
        }

        mutating func emit(_ node: Node) throws(Failure) {
            switch node {
            case .empty: return
            case .scalar(let value): try append(.scalar(value))
            case .any: try append(.any)
            case .set(let ranges, let negated): try append(.set(ranges, negated: negated))
            case .lineStart: try append(.lineStart)
            case .lineEnd: try append(.lineEnd)
            case .sequence(let items): for item in items { try emit(item) }
            case .choice(let branches):
                var jumps: [Int] = []
                for (number, branch) in branches.enumerated() {
                    if number < branches.count - 1 {
                        let split = program.count
                        try append(.split(split + 1, 0))
                        try emit(branch)
                        jumps.append(program.count)
                        try append(.jump(0))
                        program[split] = .split(split + 1, program.count)
                    } else {
                        try emit(branch)
                    }
                }
                for jump in jumps { program[jump] = .jump(program.count) }
            case .repeated(let inner, let min, let max):
                for _ in 0..<min { try emit(inner) }
                if let max {
                    var splits: [Int] = []
                    for _ in min..<max {
                        splits.append(program.count)
                        try append(.split(0, 0))
                        try emit(inner)
                    }
                    for split in splits { program[split] = .split(split + 1, program.count) }
                } else {
                    let split = program.count
                    try append(.split(split + 1, 0))
                    try emit(inner)
                    try append(.jump(split))
                    program[split] = .split(split + 1, program.count)
                }
            }
        }
    }
}

extension BoundedRegex {
    /// Compiled patterns, a few, by their text: a query runs the function once per row.
    private static let cache = Mutex<[String: BoundedRegex]>([:])

    static func cached(_ pattern: String) -> BoundedRegex? {
        if let hit = cache.withLock({ $0[pattern] }) { return hit }
        guard let compiled = try? BoundedRegex(pattern) else { return nil }
        cache.withLock { cache in
            if cache.count >= 32 { cache.removeAll() }
            cache[pattern] = compiled
        }
        return compiled
    }

    /// `songbox_regexp(value, pattern)`: 1 when the pattern matches the value, NULL for a NULL
    /// value (a missing tag: its negation holds), 0 for a pattern that does not compile.
    static let sqlFunction = DatabaseFunction("songbox_regexp", argumentCount: 2, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) else { return nil }
        guard let pattern = String.fromDatabaseValue(values[1]), let regex = cached(pattern) else { return false }
        return regex.matches(text)
    }
}
