/// One value per fix field, reached by `FixField`: the fields of a record as found (`FixFields`) and the names a
/// format gives them (`FixFieldNames`), with one switch between them.
protocol PerFixField {
    associatedtype Value
    var device: Value { get set }
    var timestamp: Value { get set }
    var latitude: Value { get set }
    var longitude: Value { get set }
    var accuracy: Value { get set }
    var altitude: Value { get set }
    var speed: Value { get set }
    var course: Value { get set }
}

extension PerFixField {
    subscript(field: FixField) -> Value {
        @inline(__always) get {
            switch field {
            case .device: device
            case .timestamp: timestamp
            case .latitude: latitude
            case .longitude: longitude
            case .accuracy: accuracy
            case .altitude: altitude
            case .speed: speed
            case .course: course
            }
        }
        @inline(__always) set {
            switch field {
            case .device: device = newValue
            case .timestamp: timestamp = newValue
            case .latitude: latitude = newValue
            case .longitude: longitude = newValue
            case .accuracy: accuracy = newValue
            case .altitude: altitude = newValue
            case .speed: speed = newValue
            case .course: course = newValue
            }
        }
    }
}
