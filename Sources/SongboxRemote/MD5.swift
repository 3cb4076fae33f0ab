import Crypto

/// MD5 (RFC 1321), for the services that sign requests with it (Last.fm's `api_sig`), never
/// for anything that must be secret: swift-crypto's, which async-http-client's certificates
/// build already.
public enum MD5 {
    /// The digest of `bytes` as 32 lowercase hex digits.
    public static func hex<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: digest(bytes).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// The 16 bytes of the digest of `bytes`.
    public static func digest<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        Array(Insecure.MD5.hash(data: Array(bytes)))
    }
}
