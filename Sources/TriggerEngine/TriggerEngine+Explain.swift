extension TriggerEngine {
    /// What the engine decided at the device's recent inputs and why, for every request near them or for `request`
    /// only (`Configuration.explainDepth` says how many it keeps); nil for a device it does not know.
    public func explain(device: String, request: String? = nil) -> DeviceExplanation? {
        core.explanation(ofDevice: device, request: request)?.0
    }

    /// The inputs of `Configuration.explainDevice` recorded since the last drain, explained (replay prints them as
    /// it goes); nil until the device has been seen.
    public func drainExplanation(request: String? = nil) -> DeviceExplanation? {
        guard let device = configuration.explainDevice,
            let (explanation, written) = core.explanation(ofDevice: device, request: request, since: drained)
        else { return nil }
        drained = written
        return explanation
    }
}
