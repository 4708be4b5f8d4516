import JSON

/// What users register (SPEC §1): an identifier, the content to present, and the location trigger.
public struct NotificationRequest: Hashable, Sendable {
    public var identifier: String
    public var content: NotificationContent
    public var trigger: LocationTrigger

    public init(identifier: String, content: NotificationContent, trigger: LocationTrigger) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
    }
}

/// The notification's presentable content; strings may hold placeholders (see `ContentTemplate`).
public struct NotificationContent: Hashable, Sendable {
    public var title: String
    public var subtitle: String
    public var body: String
    public var badge: Int?
    public var sound: String?
    public var categoryIdentifier: String
    /// Defaults to the region id, so one region's notifications group together.
    public var threadIdentifier: String?
    /// Defaults to the device id.
    public var summaryArgument: String?
    public var userInfo: JSONValue

    public init(title: String = "", subtitle: String = "", body: String = "", badge: Int? = nil, sound: String? = nil,
                categoryIdentifier: String = "", threadIdentifier: String? = nil, summaryArgument: String? = nil,
                userInfo: JSONValue = .object([])) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.badge = badge
        self.sound = sound
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
        self.summaryArgument = summaryArgument
        self.userInfo = userInfo
    }
}

/// `UNLocationNotificationTrigger` plus GeoTrigger's extensions (SPEC §1).
public struct LocationTrigger: Hashable, Sendable {
    public var region: Region
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    public var repeats: Bool
    /// nil: every device.
    public var devices: Set<String>?
    /// Seconds inside before an entry notifies.
    public var dwell: Double
    /// Metres added to the fix's accuracy for the uncertain band.
    public var hysteresis: Double
    /// Fixes with a worse horizontal accuracy (metres) are ignored for this trigger.
    public var maximumAccuracy: Double?
    public var initialTrigger: Bool
    /// Seconds: a repeating trigger notifies a device at most once per interval.
    public var minimumInterval: Double
    /// Beacon regions: seconds without a matching sighting before the observer is outside.
    public var exitTimeout: Double

    public static let defaultExitTimeout = 30.0

    public init(region: Region, notifyOnEntry: Bool = true, notifyOnExit: Bool = true, repeats: Bool = false,
                devices: Set<String>? = nil, dwell: Double = 0, hysteresis: Double = 0, maximumAccuracy: Double? = nil,
                initialTrigger: Bool = false, minimumInterval: Double = 0,
                exitTimeout: Double = LocationTrigger.defaultExitTimeout) {
        self.region = region
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.repeats = repeats
        self.devices = devices
        self.dwell = dwell
        self.hysteresis = hysteresis
        self.maximumAccuracy = maximumAccuracy
        self.initialTrigger = initialTrigger
        self.minimumInterval = minimumInterval
        self.exitTimeout = exitTimeout
    }

    @inlinable public func applies(to device: String) -> Bool { devices.map { $0.contains(device) } ?? true }
}
