import CCurlShims

extension EasyHandlePool {
    /// Sets the session's ``NetworkControls`` on a new handle: only those that are on, so a
    /// session without any sets nothing. They hold for every request of the session (the
    /// per-request ones are put back by ``prepareNetwork(_:on:request:)``).
    func applyNetworkControls(_ network: NetworkControls, _ options: EasyOptions) throws(CurlewError) {
        let handle = options.handle
        if let sessionResolveList {
            try options.check(curlew_easy_setopt_slist(handle, CURLOPT_RESOLVE, sessionResolveList), CURLOPT_RESOLVE)
        }
        if let sessionConnectToList {
            try options.check(curlew_easy_setopt_slist(handle, CURLOPT_CONNECT_TO, sessionConnectToList), CURLOPT_CONNECT_TO)
        }
        if network.ipVersion != .any { try options.set(CURLOPT_IPRESOLVE, network.ipVersion.curlValue) }
        if let delay = network.happyEyeballsDelay {
            try options.set(CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS, NetworkControls.wholeMilliseconds(delay))
        }
        if let lifetime = network.dnsCacheLifetime {
            try options.set(CURLOPT_DNS_CACHE_TIMEOUT, NetworkControls.wholeSeconds(lifetime))
        }
        if let idle = network.maximumConnectionIdleTime {
            try options.set(CURLOPT_MAXAGE_CONN, NetworkControls.wholeSeconds(idle))
        }
        if let lifetime = network.maximumConnectionLifetime {
            try options.set(CURLOPT_MAXLIFETIME_CONN, NetworkControls.wholeSeconds(lifetime))
        }
        if let interface = network.outgoingInterface { try options.set(CURLOPT_INTERFACE, interface.curlValue) }
        if let ports = network.localPorts {
            try options.set(CURLOPT_LOCALPORT, ports.lowerBound)
            try options.set(CURLOPT_LOCALPORTRANGE, ports.count)
        }
        if let doh = network.dnsOverHTTPS {
            try options.set(CURLOPT_DOH_URL, doh.url.absoluteString)
            // libcurl's defaults are verify peer and host, no OCSP: set only what differs.
            switch doh.trust {
            case .verified: break
            case .verifiedWithOCSPStapling: try options.set(CURLOPT_DOH_SSL_VERIFYSTATUS, 1)
            case .insecureNoEvaluation(let reason):
                try options.set(CURLOPT_DOH_SSL_VERIFYPEER, 0)
                try options.set(CURLOPT_DOH_SSL_VERIFYHOST, 0)
                if !loggedInsecureDNSOverHTTPS {
                    loggedInsecureDNSOverHTTPS = true
                    configuration.logger?.warning(
                        "Curlew: TLS certificate and host name checks are OFF for the DNS-over-HTTPS server \(Redaction.string(doh.url)): \(reason)")
                }
            }
        }
    }

    /// Sets a request's own `CURLOPT_CONNECT_TO` and `CURLOPT_IPRESOLVE` on `handle`, or the
    /// session's again where an earlier request overrode them; nothing for the common case of
    /// neither (the caller checks ``TransferSettings/overridesNetwork`` and
    /// ``EasyHandle/networkOverridden`` first). Called after ``TransferSettings/validate(url:)`` accepted the request's map.
    func prepareNetwork(_ settings: TransferSettings, on handle: EasyHandle, request: OutgoingRequest) throws(CurlewError) {
        let options = EasyOptions(handle: handle.pointer, request: request)
        let session = configuration.network
        // Marked first: if setting fails half way, the session's are set again on reuse.
        handle.networkOverridden = true
        // The request's own list (nil for an empty map, which turns the session's off), else the session's.
        let ownList = settings.connectToOverride.flatMap { Self.list(NetworkControls.connectToLines($0)) }
        let list = settings.connectToOverride == nil ? sessionConnectToList : ownList
        let code = curlew_easy_setopt_slist(handle.pointer, CURLOPT_CONNECT_TO, list)
        guard code == CURLE_OK else {
            if let ownList { curl_slist_free_all(ownList) }
            try options.check(code, CURLOPT_CONNECT_TO)
            return
        }
        // libcurl now points at the new list (or the session's): the old one can go.
        if let old = handle.connectToList { curl_slist_free_all(old) }
        handle.connectToList = ownList
        try options.set(CURLOPT_IPRESOLVE, (settings.ipVersionOverride ?? session.ipVersion).curlValue)
        handle.networkOverridden = settings.overridesNetwork
    }
}
