import CLV2
import Glibc
import TrellisPlugins

/// One `LV2_Descriptor` per exported plugin, made on the first call and never freed:
/// hosts keep the pointers for as long as the library is loaded. Read-only once made.
nonisolated(unsafe) private let descriptors: UnsafeMutableBufferPointer<LV2_Descriptor> = {
    // Owner: the library, for the process's lifetime (hosts keep the pointers); never freed.
    let table = UnsafeMutableBufferPointer<LV2_Descriptor>.allocate(capacity: ExportedPlugins.all.count)
    for (index, plugin) in ExportedPlugins.all.enumerated() {
        table[index] = LV2_Descriptor(
            URI: UnsafePointer(strdup(plugin.uri)),
            instantiate: pluginInstantiate, connect_port: pluginConnectPort, activate: pluginActivate,
            run: pluginRun, deactivate: nil, cleanup: pluginCleanup, extension_data: pluginExtensionData)
        if plugin.content != nil { table[index].extension_data = contentPluginExtensionData }
    }
    return table
}()

/// The library's one exported symbol. Thread: the host's discovery thread.
@_cdecl("lv2_descriptor")
public func lv2Descriptor(_ index: UInt32) -> UnsafePointer<LV2_Descriptor>? {
    guard Int(index) < descriptors.count else { return nil }
    return UnsafePointer(descriptors.baseAddress! + Int(index))
}

private func pluginInstantiate(
    _ descriptor: UnsafePointer<LV2_Descriptor>?, _ sampleRate: Double, _ bundlePath: UnsafePointer<CChar>?,
    _ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?
) -> LV2_Handle? {
    guard let descriptor, let uri = descriptor.pointee.URI,
          let plugin = ExportedPlugins.plugin(uri: String(cString: uri)),
          let instance = PluginInstance(plugin: plugin, sampleRate: sampleRate, features: HostFeatures(features)) else { return nil }
    return LV2_Handle(instance.state)
}

private func pluginConnectPort(_ handle: LV2_Handle?, _ port: UInt32, _ data: UnsafeMutableRawPointer?) {
    guard let handle else { return }
    let state = handle.assumingMemoryBound(to: RunState.self)
    guard Int(port) < state.pointee.portCount else { return }
    state.pointee.ports[Int(port)] = data
}

private func pluginActivate(_ handle: LV2_Handle?) {
    guard let handle else { return }
    PluginInstance.owner(of: handle.assumingMemoryBound(to: RunState.self)).activate()
}

private func pluginRun(_ handle: LV2_Handle?, _ frames: UInt32) {
    guard let handle else { return }
    RunState.run(handle.assumingMemoryBound(to: RunState.self), frames: Int(frames))
}

private func pluginCleanup(_ handle: LV2_Handle?) {
    guard let handle else { return }
    PluginInstance.release(handle.assumingMemoryBound(to: RunState.self))
}

private func pluginExtensionData(_ uri: UnsafePointer<CChar>?) -> UnsafeRawPointer? { nil }

private func contentPluginExtensionData(_ uri: UnsafePointer<CChar>?) -> UnsafeRawPointer? {
    switch uri.map({ String(cString: $0) }) {
    case "http://lv2plug.in/ns/ext/worker#interface": UnsafeRawPointer(ContentExtensions.worker)
    case "http://lv2plug.in/ns/ext/state#interface": UnsafeRawPointer(ContentExtensions.state)
    default: nil
    }
}
