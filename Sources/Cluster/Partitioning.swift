/// Which partition a device's inputs go to: FNV-1a (32 bits) of the device id's UTF-8 bytes, modulo P. This is
/// exactly what nats-server's subject mapping `{{partition(P,k)}}` computes for a one-token subject, so producers
/// that publish `…loc.<device>` through such a mapping land where this gateway puts the same device.
public enum Partitioning {
    public static func fnv1a32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var h: UInt32 = 0x811C_9DC5
        for b in bytes { h = (h ^ UInt32(b)) &* 0x0100_0193 }
        return h
    }

    public static func partition(of device: String, count: Int) -> Int {
        Int(fnv1a32(device.utf8) % UInt32(count))
    }
}
