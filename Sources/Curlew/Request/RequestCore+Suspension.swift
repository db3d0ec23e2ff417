extension RequestCore {
    /// Suspends the request: its transfer now, and the transfers of later attempts. Reported in
    /// the events by the curl loop for a running transfer (once paused), else here.
    func suspend() {
        let transfer = state.withLock { state -> Transfer?? in
            if state.isDone { return .none }
            guard !state.isSuspended else { return .none }
            state.isSuspended = true
            return .some(state.transfer)
        }
        guard case .some(let current) = transfer else { return }
        if current?.suspend() != true { events.emit(.suspended) }
    }

    /// Resumes a suspended request; a transfer whose start was deferred starts now.
    func resume() {
        let transfer = state.withLock { state -> Transfer?? in
            guard state.isSuspended else { return .none }
            state.isSuspended = false
            if state.isDone { return .none }
            return .some(state.transfer)
        }
        guard case .some(let current) = transfer else { return }
        if current?.resume() != true { events.emit(.resumed) }
    }
}
