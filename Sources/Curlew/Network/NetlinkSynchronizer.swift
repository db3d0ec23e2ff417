import CCurlShims

/// Keeps ``NetworkTables`` in step with the kernel: the first dumps (links, then addresses,
/// then routes), the events that follow, and the dumps again when messages were lost or a link
/// went administratively up or down. A plain value fed with parsed messages that returns what
/// to do — ask for a dump, announce readiness, give up — so it is tested without a socket
/// (``NetlinkMonitorLoop`` carries the actions out).
struct NetlinkSynchronizer {
    enum Dump: CaseIterable, Sendable {
        case links, addresses, routes

        var requestType: UInt16 {
            switch self {
            case .links: curlew_RTM_GETLINK
            case .addresses: curlew_RTM_GETADDR
            case .routes: curlew_RTM_GETROUTE
            }
        }
    }

    enum Action: Equatable, Sendable {
        /// Send a dump request of this type with this sequence number.
        case requestDump(Dump, sequence: UInt32)
        /// The first dumps are complete: the tables describe the machine.
        case ready
        /// The kernel refused a first dump (a negative errno): the monitor cannot start.
        case fail(Dump, code: Int32)
    }

    private struct InFlight {
        var dump: Dump
        var sequence: UInt32
        var collected = NetworkTables()
        var interrupted = false
    }

    /// Our socket's port id: replies to our dumps are addressed to it.
    let port: UInt32
    private(set) var tables = NetworkTables()
    /// Whether the first dumps are complete.
    private(set) var isReady = false
    private var pending: [Dump] = []
    private var inFlight: InFlight?
    private var sequence: UInt32 = 0

    init(port: UInt32) {
        self.port = port
    }

    /// The first dumps.
    mutating func start() -> [Action] {
        schedule(Dump.allCases)
    }

    /// The kernel dropped messages (`ENOBUFS`, `NLMSG_OVERRUN`, a truncated datagram): everything
    /// is read again; a dump in flight starts over.
    mutating func lostMessages() -> [Action] {
        schedule(Dump.allCases)
    }

    /// Applies the messages of one datagram.
    mutating func receive(_ envelopes: [NetlinkEnvelope]) -> [Action] {
        var actions: [Action] = []
        for envelope in envelopes { actions += receive(envelope) }
        return actions
    }

    private mutating func receive(_ envelope: NetlinkEnvelope) -> [Action] {
        if var flight = inFlight, envelope.port == port, envelope.sequence == flight.sequence {
            if envelope.flags & curlew_NLM_F_DUMP_INTR != 0 { flight.interrupted = true }
            switch envelope.message {
            case .done:
                inFlight = nil
                return finish(flight)
            case .error(let code) where code != 0:
                inFlight = nil
                // Later dumps only refresh what events already keep up to date: skip the one refused.
                return isReady ? startNextDump() : [.fail(flight.dump, code: code)]
            default:
                flight.collected.apply(envelope.message)
                inFlight = flight
                return []
            }
        }
        if case .overrun = envelope.message { return lostMessages() }
        // An event. It applies to what a dump collects too: the dump may already have passed
        // the entry it changes.
        let change = tables.apply(envelope.message)
        inFlight?.collected.apply(envelope.message)
        return change.contains(.administrativeState) ? schedule([.addresses, .routes]) : []
    }

    private mutating func finish(_ flight: InFlight) -> [Action] {
        if flight.interrupted {
            // The kernel's tables changed under the dump (or we asked again): repeat it.
            pending.insert(flight.dump, at: 0)
        } else {
            switch flight.dump {
            case .links: tables.replaceLinks(with: flight.collected)
            case .addresses: tables.replaceAddresses(with: flight.collected)
            case .routes: tables.replaceRoutes(with: flight.collected)
            }
        }
        var actions = startNextDump()
        if inFlight == nil, !isReady {
            isReady = true
            actions.append(.ready)
        }
        return actions
    }

    /// Queues dumps; one already in flight for the same kind starts over once done, since it
    /// may have passed entries that changed.
    private mutating func schedule(_ dumps: [Dump]) -> [Action] {
        for dump in dumps {
            if inFlight?.dump == dump {
                inFlight?.interrupted = true
            } else if !pending.contains(dump) {
                pending.append(dump)
            }
        }
        return startNextDump()
    }

    /// The kernel runs one dump per socket at a time.
    private mutating func startNextDump() -> [Action] {
        guard inFlight == nil, !pending.isEmpty else { return [] }
        let dump = pending.removeFirst()
        sequence &+= 1
        inFlight = InFlight(dump: dump, sequence: sequence)
        return [.requestDump(dump, sequence: sequence)]
    }
}
