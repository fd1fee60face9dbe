/// The LV2 vocabulary Trellis reads and the features it offers, spelled out because
/// Swift does not import the headers' concatenated string macros.
enum LV2URI {
    static let core = "http://lv2plug.in/ns/lv2core#"
    static let atomNS = "http://lv2plug.in/ns/ext/atom#"
    static let stateNS = "http://lv2plug.in/ns/ext/state#"
    static let bufSizeNS = "http://lv2plug.in/ns/ext/buf-size#"
    static let portGroupsNS = "http://lv2plug.in/ns/ext/port-groups#"
    static let portPropsNS = "http://lv2plug.in/ns/ext/port-props#"
    static let unitsNS = "http://lv2plug.in/ns/extensions/units#"
    static let presetsNS = "http://lv2plug.in/ns/ext/presets#"
    static let optionsNS = "http://lv2plug.in/ns/ext/options#"
    static let parametersNS = "http://lv2plug.in/ns/ext/parameters#"

    static let audioPort = core + "AudioPort"
    static let controlPort = core + "ControlPort"
    static let cvPort = core + "CVPort"
    static let inputPort = core + "InputPort"
    static let outputPort = core + "OutputPort"
    static let atomPort = atomNS + "AtomPort"
    static let eventPort = "http://lv2plug.in/ns/ext/event#EventPort"
    static let connectionOptional = core + "connectionOptional"
    static let toggled = core + "toggled"
    static let integer = core + "integer"
    static let enumeration = core + "enumeration"
    static let sampleRate = core + "sampleRate"
    static let reportsLatency = core + "reportsLatency"
    static let isSideChain = core + "isSideChain"
    static let designation = core + "designation"
    static let control = core + "control"
    static let freeWheeling = core + "freeWheeling"
    static let enabled = core + "enabled"
    static let requiredFeature = core + "requiredFeature"
    static let optionalFeature = core + "optionalFeature"
    static let hardRTCapable = core + "hardRTCapable"
    static let inPlaceBroken = core + "inPlaceBroken"
    static let isLive = core + "isLive"
    static let project = core + "project"
    static let logarithmic = portPropsNS + "logarithmic"
    static let notOnGUI = portPropsNS + "notOnGUI"
    static let group = portGroupsNS + "group"
    static let left = portGroupsNS + "left"
    static let right = portGroupsNS + "right"
    static let unit = unitsNS + "unit"
    static let minimumSize = "http://lv2plug.in/ns/ext/resize-port#minimumSize"
    static let preset = presetsNS + "Preset"
    static let rdfType = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    static let rdfsLabel = "http://www.w3.org/2000/01/rdf-schema#label"
    static let doapName = "http://usefulinc.com/ns/doap#name"
    static let supports = atomNS + "supports"
    static let bufferType = atomNS + "bufferType"

    static let atomSequence = atomNS + "Sequence"
    static let atomChunk = atomNS + "Chunk"
    static let atomFloat = atomNS + "Float"
    static let atomInt = atomNS + "Int"
    static let atomDouble = atomNS + "Double"
    static let atomBool = atomNS + "Bool"
    static let atomLong = atomNS + "Long"
    static let atomURID = atomNS + "URID"
    static let atomObject = atomNS + "Object"
    static let atomBlank = atomNS + "Blank"
    static let atomResource = atomNS + "Resource"
    static let atomString = atomNS + "String"
    static let atomPath = atomNS + "Path"
    static let atomURI = atomNS + "URI"
    static let midiEvent = "http://lv2plug.in/ns/ext/midi#MidiEvent"

    static let timeNS = "http://lv2plug.in/ns/ext/time#"
    static let timePosition = timeNS + "Position"
    static let timeFrame = timeNS + "frame"
    static let timeSpeed = timeNS + "speed"
    static let timeBar = timeNS + "bar"
    static let timeBarBeat = timeNS + "barBeat"
    static let timeBeat = timeNS + "beat"
    static let timeBeatUnit = timeNS + "beatUnit"
    static let timeBeatsPerBar = timeNS + "beatsPerBar"
    static let timeBeatsPerMinute = timeNS + "beatsPerMinute"

    static let patchNS = "http://lv2plug.in/ns/ext/patch#"
    static let patchWritable = patchNS + "writable"
    static let patchReadable = patchNS + "readable"
    static let patchMessage = patchNS + "Message"
    static let patchSet = patchNS + "Set"
    static let patchGet = patchNS + "Get"
    static let patchPut = patchNS + "Put"
    static let patchProperty = patchNS + "property"
    static let patchValue = patchNS + "value"
    static let patchBody = patchNS + "body"
    static let rdfsRange = "http://www.w3.org/2000/01/rdf-schema#range"
    static let minimum = core + "minimum"
    static let maximum = core + "maximum"
    static let defaultValue = core + "default"
    static let stateState = stateNS + "state"

    static let uridMap = "http://lv2plug.in/ns/ext/urid#map"
    static let uridUnmap = "http://lv2plug.in/ns/ext/urid#unmap"
    static let options = optionsNS + "options"
    static let boundedBlockLength = bufSizeNS + "boundedBlockLength"
    static let minBlockLength = bufSizeNS + "minBlockLength"
    static let maxBlockLength = bufSizeNS + "maxBlockLength"
    static let nominalBlockLength = bufSizeNS + "nominalBlockLength"
    static let sequenceSize = bufSizeNS + "sequenceSize"
    static let paramSampleRate = parametersNS + "sampleRate"
    static let workerSchedule = "http://lv2plug.in/ns/ext/worker#schedule"
    static let workerInterface = "http://lv2plug.in/ns/ext/worker#interface"
    static let log = "http://lv2plug.in/ns/ext/log#log"
    static let logError = "http://lv2plug.in/ns/ext/log#Error"
    static let logWarning = "http://lv2plug.in/ns/ext/log#Warning"
    static let logNote = "http://lv2plug.in/ns/ext/log#Note"
    static let logTrace = "http://lv2plug.in/ns/ext/log#Trace"
    static let makePath = stateNS + "makePath"
    static let mapPath = stateNS + "mapPath"
    static let freePath = stateNS + "freePath"
    static let loadDefaultState = stateNS + "loadDefaultState"
    static let threadSafeRestore = stateNS + "threadSafeRestore"

    /// Features a plugin may list as required that describe the plugin rather than
    /// ask the host for anything, so they never block loading.
    static let pluginProperties: Set<String> = [hardRTCapable, inPlaceBroken, isLive, threadSafeRestore]

    /// What the URID table holds from the start: the types and keys of the events a
    /// plugin reads and writes in `run` (atoms, MIDI, time positions, patch messages,
    /// log levels, block sizes), so mapping them there never takes the writers' lock.
    static var preMapped: [String] {
        let atoms = ["Atom", "Blank", "Bool", "Chunk", "Double", "Event", "Float", "Int", "Literal", "Long", "Number", "Object",
                     "Path", "Property", "Resource", "Sequence", "Sound", "String", "Tuple", "URI", "URID", "Vector",
                     "beatTime", "frameTime", "atomTransfer", "eventTransfer"].map { atomNS + $0 }
        let time = ["Position", "Rate", "Time", "bar", "barBeat", "beat", "beatUnit", "beatsPerBar", "beatsPerMinute", "frame",
                    "framesPerSecond", "speed"].map { timeNS + $0 }
        let patch = ["Ack", "Copy", "Delete", "Error", "Get", "Insert", "Message", "Move", "Patch", "Put", "Request", "Response",
                     "Set", "accept", "add", "body", "context", "destination", "property", "readable", "remove", "request",
                     "sequenceNumber", "subject", "value", "wildcard", "writable"].map { patchNS + $0 }
        let logs = ["Entry", "Error", "Note", "Trace", "Warning"].map { "http://lv2plug.in/ns/ext/log#" + $0 }
        let sizes = [minBlockLength, maxBlockLength, nominalBlockLength, sequenceSize]
        let others = [midiEvent, paramSampleRate, parametersNS + "gain", stateNS + "StateChanged", rdfsRange, "http://lv2plug.in/ns/ext/ui#floatProtocol"]
        return atoms + time + patch + logs + sizes + others
    }
}
