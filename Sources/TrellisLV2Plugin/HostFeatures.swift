import CLV2

/// What the plugin takes from the host's features at instantiation.
struct HostFeatures {
    var map: UnsafePointer<LV2_URID_Map>?
    var schedule: UnsafePointer<LV2_Worker_Schedule>?

    init(_ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) {
        map = Self.data("http://lv2plug.in/ns/ext/urid#map", in: features, as: LV2_URID_Map.self)
        schedule = Self.data("http://lv2plug.in/ns/ext/worker#schedule", in: features, as: LV2_Worker_Schedule.self)
    }

    /// The data of the feature `uri` in a host's null-terminated list, if it is there.
    static func data<T>(_ uri: String, in features: UnsafePointer<UnsafePointer<LV2_Feature>?>?, as: T.Type) -> UnsafePointer<T>? {
        var index = 0
        while let feature = features?[index] {
            index += 1
            if let name = feature.pointee.URI, let data = feature.pointee.data, String(cString: name) == uri {
                return UnsafePointer(data.assumingMemoryBound(to: T.self))
            }
        }
        return nil
    }
}
