/// One round of a run as `run.sh` recorded it: the load just before it and each scenario's
/// client order.
struct RoundInfo: Codable, Sendable {
    /// The round, from 1.
    var round: Int
    /// `/proc/loadavg` just before the round: 1-, 5- and 15-minute averages.
    var load1m: Double?
    var load5m: Double?
    var load15m: Double?
    /// scenario → the clients in the order they ran (a cyclic Latin square per scenario).
    var orders: [String: [String]]

    enum CodingKeys: String, CodingKey {
        case round, orders
        case load1m = "load_1m"
        case load5m = "load_5m"
        case load15m = "load_15m"
    }
}
