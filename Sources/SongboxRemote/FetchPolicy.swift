import Foundation
import SongboxFiles
import Synchronization

/// Where songbox fetches from, checked before every request and every redirect it follows.
///
/// A URL comes from outside (an MPD client's `add`, a plugin, a station's playlist, a
/// server's redirect), so it may name songbox's own MPD port (a request to it would be read as
/// MPD commands) or this machine's loopback services. So:
/// - nothing is fetched from a port this process listens on, at any address of this machine;
/// - a station's playlist or a redirect from a server elsewhere may not lead to a loopback or
///   link-local address (`127.0.0.0/8`, `::1`, `169.254.0.0/16`, `fe80::/10`) unless the config
///   says `allow_local_streams = yes`. A URL the user names, and a local server's own links,
///   may.
public struct FetchPolicy: Sendable, Hashable {
    /// Whether stations and redirects from elsewhere may lead to loopback or link-local addresses.
    public var allowLocalFromElsewhere: Bool

    public init(allowLocalFromElsewhere: Bool = false) {
        self.allowLocalFromElsewhere = allowLocalFromElsewhere
    }

    /// The TCP ports this process serves on (the daemon's MPD ports): never fetched from.
    private static let ownPorts = Mutex<Set<Int>>([])

    /// Records the ports the process now listens on.
    public static func listening(on ports: [Int]) {
        ownPorts.withLock { $0.formUnion(ports) }
    }

    /// Refuses `url` when it leads where songbox does not fetch from; `origin` is the URL that
    /// named it (a station's playlist, a redirecting server), nil when the user did.
    func check(_ url: URL, origin: URL?) throws(HTTPAudioSource.Stop) {
        guard let host = url.host, !host.isEmpty else { throw .failed("the URL has no host") }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        let addresses = HostAddress.resolve(host)
        if Self.ownPorts.withLock({ $0.contains(port) }), HostAddress.anyIsThisMachine(addresses) {
            throw .failed("it names songbox's own port (\(host):\(port)), which songbox never fetches from")
        }
        guard !allowLocalFromElsewhere, let origin, let local = addresses.first(where: \.isLocalOnly) else { return }
        let originIsLocal = origin.host.map { HostAddress.resolve($0).contains(where: \.isLocalOnly) } ?? false
        if !originIsLocal {
            throw .failed("\(TrackLocation.shown(origin.absoluteString)) leads to a local address (\(local.text)), which songbox follows only with allow_local_streams = yes in the config")
        }
    }
}

/// One address a host name resolves to.
struct HostAddress: Sendable {
    enum Family { case v4, v6 }
    var family: Family
    /// 4 or 16 bytes, network order.
    var bytes: [UInt8]

    var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        _ = inet_ntop(family == .v4 ? AF_INET : AF_INET6, &copy, &buffer, socklen_t(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An IPv6 address that carries an IPv4 one (`::ffff:127.0.0.1`), as that.
    private var unmapped: HostAddress {
        guard family == .v6, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else { return self }
        return HostAddress(family: .v4, bytes: Array(bytes[12...]))
    }

    /// Loopback, link-local or unspecified (which reaches this machine).
    var isLocalOnly: Bool {
        let address = unmapped
        switch address.family {
        case .v4:
            return address.bytes[0] == 127 || (address.bytes[0] == 169 && address.bytes[1] == 254) || address.bytes.allSatisfy { $0 == 0 }
        case .v6:
            let zeros = address.bytes[0..<15].allSatisfy { $0 == 0 }
            return (zeros && (address.bytes[15] == 1 || address.bytes[15] == 0))
                || (address.bytes[0] == 0xfe && address.bytes[1] & 0xc0 == 0x80)
        }
    }

    /// Whether one of `addresses` is this machine's: local-only, or one of its interfaces' (read
    /// once for them all).
    static func anyIsThisMachine(_ addresses: [HostAddress]) -> Bool {
        if addresses.contains(where: \.isLocalOnly) { return true }
        let interfaces = Set(interfaceAddresses().map(\.unmapped.bytes))
        return addresses.contains { interfaces.contains($0.unmapped.bytes) }
    }

    /// Every address `host` resolves to (none when it does not resolve: the fetch then says so).
    static func resolve(_ host: String) -> [HostAddress] {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &found) == 0 else { return [] }
        defer { freeaddrinfo(found) }
        var addresses: [HostAddress] = []
        var entry = found
        while let current = entry {
            if let address = current.pointee.ai_addr.flatMap(Self.init(socketAddress:)) { addresses.append(address) }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// The addresses of this machine's interfaces.
    static func interfaceAddresses() -> [HostAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [HostAddress] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ifa_addr.flatMap(Self.init(socketAddress:)) { addresses.append(address) }
            entry = current.pointee.ifa_next
        }
        return addresses
    }

    init(family: Family, bytes: [UInt8]) {
        self.family = family
        self.bytes = bytes
    }

    init?(socketAddress: UnsafeMutablePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let address = UnsafeRawPointer(socketAddress).load(as: sockaddr_in.self).sin_addr
            self.init(family: .v4, bytes: withUnsafeBytes(of: address) { Array($0) })
        case AF_INET6:
            let address = UnsafeRawPointer(socketAddress).load(as: sockaddr_in6.self).sin6_addr
            self.init(family: .v6, bytes: withUnsafeBytes(of: address) { Array($0) })
        default:
            return nil
        }
    }
}
