import CLV2
import Glibc
import TrellisPlugins

/// The worker and state interfaces of a plugin that loads content (the sampler's bank):
/// a `patch:Set` read in `run` asks the worker to load the bank into a new unit; the
/// response hands its kernel to `run`; a later request drops the unit it replaced. The
/// state keeps the bank's path (made portable by the host's `state:mapPath`).
enum ContentExtensions {
    nonisolated(unsafe) static let worker: UnsafeMutablePointer<LV2_Worker_Interface> = {
        // Owner: the library, for the process's lifetime (hosts keep the pointer); never freed.
        let worker = UnsafeMutablePointer<LV2_Worker_Interface>.allocate(capacity: 1)
        worker.initialize(to: LV2_Worker_Interface(work: work, work_response: workResponse, end_run: nil))
        return worker
    }()

    nonisolated(unsafe) static let state: UnsafeMutablePointer<LV2_State_Interface> = {
        // Owner: the library, for the process's lifetime (hosts keep the pointer); never freed.
        let state = UnsafeMutablePointer<LV2_State_Interface>.allocate(capacity: 1)
        state.initialize(to: LV2_State_Interface(save: save, restore: restore))
        return state
    }()
}

private func runState(_ handle: LV2_Handle?) -> UnsafeMutablePointer<RunState>? {
    handle?.assumingMemoryBound(to: RunState.self)
}

/// Thread: the host's worker.
private func work(
    _ handle: LV2_Handle?, _ respond: LV2_Worker_Respond_Function?, _ respondHandle: LV2_Worker_Respond_Handle?,
    _ size: UInt32, _ data: UnsafeRawPointer?
) -> LV2_Worker_Status {
    guard let state = runState(handle), let data, size >= 4, let kind = WorkRequest(rawValue: data.loadUnaligned(as: UInt32.self)) else {
        return LV2_WORKER_ERR_UNKNOWN
    }
    let owner = PluginInstance.owner(of: state)
    switch kind {
    case .load:
        let bytes = UnsafeRawBufferPointer(start: data + 4, count: Int(size) - 4)
        let path = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        guard var loaded = owner.loadContent(path: path) else { return LV2_WORKER_ERR_UNKNOWN }
        return respond?(respondHandle, UInt32(MemoryLayout<LoadedContent>.size), &loaded) ?? LV2_WORKER_ERR_UNKNOWN
    case .retire:
        guard size >= 16 else { return LV2_WORKER_ERR_UNKNOWN }
        owner.retire(before: Int(data.loadUnaligned(fromByteOffset: 8, as: Int64.self)))
        return LV2_WORKER_SUCCESS
    }
}

/// Thread: audio (the host calls it after `run`).
private func workResponse(_ handle: LV2_Handle?, _ size: UInt32, _ body: UnsafeRawPointer?) -> LV2_Worker_Status {
    guard let state = runState(handle), let body, Int(size) == MemoryLayout<LoadedContent>.size else { return LV2_WORKER_ERR_UNKNOWN }
    state.pointee.switchTo(body.loadUnaligned(as: LoadedContent.self))
    return LV2_WORKER_SUCCESS
}

/// `path` through the host's mapping (`abstract` when saving), freed as the host asks.
private func mapped(_ path: String, abstract: Bool, _ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) -> String {
    let map = HostFeatures.data("http://lv2plug.in/ns/ext/state#mapPath", in: features, as: LV2_State_Map_Path.self)
    let free = HostFeatures.data("http://lv2plug.in/ns/ext/state#freePath", in: features, as: LV2_State_Free_Path.self)
    guard let map, let function = abstract ? map.pointee.abstract_path : map.pointee.absolute_path,
          let result = function(map.pointee.handle, path) else { return path }
    let text = String(cString: result)
    if let free, let freePath = free.pointee.free_path { freePath(free.pointee.handle, result) } else { Glibc.free(result) }
    return text
}

/// Thread: the state's own class (may run beside `run`, never beside instantiation).
private func save(
    _ handle: LV2_Handle?, _ store: LV2_State_Store_Function?, _ storeHandle: LV2_State_Handle?, _ flags: UInt32,
    _ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?
) -> LV2_State_Status {
    guard let state = runState(handle), let store, let input = state.pointee.eventInput else { return LV2_STATE_ERR_UNKNOWN }
    guard let path = PluginInstance.owner(of: state).contentPath else { return LV2_STATE_SUCCESS }
    let text = mapped(path, abstract: true, features)
    return text.withCString { pointer in
        store(storeHandle, input.urids.content, pointer, text.utf8.count + 1, input.urids.path,
              LV2_STATE_IS_POD.rawValue | LV2_STATE_IS_PORTABLE.rawValue)
    }
}

/// Thread: instantiation (`run` is not running). A bank that cannot be read leaves the
/// instance as it was.
private func restore(
    _ handle: LV2_Handle?, _ retrieve: LV2_State_Retrieve_Function?, _ retrieveHandle: LV2_State_Handle?, _ flags: UInt32,
    _ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?
) -> LV2_State_Status {
    guard let state = runState(handle), let retrieve, let input = state.pointee.eventInput else { return LV2_STATE_ERR_UNKNOWN }
    var size = 0, type: UInt32 = 0, valueFlags: UInt32 = 0
    guard let value = retrieve(retrieveHandle, input.urids.content, &size, &type, &valueFlags) else { return LV2_STATE_SUCCESS }
    guard type == input.urids.path || type == input.urids.string else { return LV2_STATE_ERR_BAD_TYPE }
    let bytes = UnsafeRawBufferPointer(start: value, count: size)
    let path = mapped(String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self), abstract: false, features)
    do {
        try PluginInstance.owner(of: state).restoreContent(path: path)
        return LV2_STATE_SUCCESS
    } catch {
        return LV2_STATE_ERR_UNKNOWN
    }
}
