/// The vocabulary: each command's form and what it does, for `help` and for errors
/// that show the expected form. docs/control.md says the same at length.
public enum CommandHelp {
    public struct Entry: Sendable {
        public var verb: String
        public var usage: String
        public var summary: String
    }

    public static let entries: [Entry] = [
        Entry(verb: "hello", usage: "hello", summary: "the protocol's name and version"),
        Entry(verb: "help", usage: "help [COMMAND]", summary: "the commands, or one command's form"),
        Entry(verb: "list", usage: "list", summary: "nodes (name and unit) and connections"),
        Entry(verb: "describe", usage: "describe", summary: "the whole graph for a desk: nodes with their buses and kinds, subgraphs, connections, compensating delays, players and recorders"),
        Entry(verb: "units", usage: "units [TEXT]", summary: "the units that can be added (built-in and LV2), or those whose name, short name, triple or URI holds TEXT"),
        Entry(verb: "takes", usage: "takes", summary: "the recorders' takes on disk: file, size and length"),
        Entry(verb: "add", usage: "add NODE UNIT [KEY=VALUE ...] [PARAM=VALUE ...]", summary: "adds a unit (short name, type:subtype:manufacturer or lv2:URI) as NODE; inputs=, outputs=, channels=, input-channels=, output-channels=, state=, preset= and bypass= set it as in a session"),
        Entry(verb: "remove", usage: "remove NODE", summary: "removes a node and its connections"),
        Entry(verb: "connect", usage: "connect SRC[.BUS] DST[.BUS] [convert]", summary: "connects an output bus to an input bus"),
        Entry(verb: "disconnect", usage: "disconnect [SRC[.BUS]] DST[.BUS]", summary: "removes the connection into an input bus"),
        Entry(verb: "set", usage: "set NODE PARAM VALUE [ramp=MS]", summary: "sets a parameter, ramped over MS milliseconds"),
        Entry(verb: "get", usage: "get NODE PARAM", summary: "a parameter's value"),
        Entry(verb: "params", usage: "params NODE", summary: "every parameter of a node with its value and range"),
        Entry(verb: "bypass", usage: "bypass NODE on|off", summary: "bypasses a node's effect or brings it back"),
        Entry(verb: "restart", usage: "restart NODE", summary: "starts an isolated plugin's process again, from its last saved state (after a crash, a hang or a missed deadline)"),
        Entry(verb: "file", usage: "file NODE NAME PATH", summary: "gives the node's LV2 plugin a file under NAME (a sample, a SoundFont, an impulse response: one of its file parameters, or a state key written as a URI); save writes it in the node's files:"),
        Entry(verb: "preset", usage: "preset NODE [NAME] | preset save NODE NAME", summary: "applies a preset (the unit's own, or the user's) by name or number; without a name, lists them; save writes the node's state as a user preset (LV2: ~/.lv2, built-ins: ~/.config/trellis/presets)"),
        Entry(verb: "property", usage: "property NODE | property get NODE NAME [SCOPE] [ELEMENT] | property set NODE NAME VALUE [SCOPE] [ELEMENT]", summary: "a node's properties (latency, stream format, bus count, preset, ...) with their values, one of them, or sets one"),
        Entry(verb: "meter", usage: "meter NODE[.BUS] [loudness [reset]]", summary: "peak and RMS level per channel in dBFS since the last reading; or EBU R128 loudness (momentary, short-term, integrated LUFS, range LU, true peak dBTP) since the first such request, or started over"),
        Entry(verb: "play", usage: "play NODE [NODE ...] [at SAMPLETIME]", summary: "starts file players, several on one frame, or at a sample time"),
        Entry(verb: "tap", usage: "tap add NODE.BUS FILE [overwrite] | tap remove NODE.BUS | tap stream NODE.BUS [for SECONDS]", summary: "records a bus of the running graph to a file, finishes it, or streams it to this connection as raw float frames"),
        Entry(verb: "position", usage: "position NODE", summary: "a file player's state, time and frame"),
        Entry(verb: "pause", usage: "pause NODE", summary: "pauses a file player"),
        Entry(verb: "stop", usage: "stop NODE", summary: "stops a file player and rewinds it"),
        Entry(verb: "seek", usage: "seek NODE SECONDS", summary: "moves a file player"),
        Entry(verb: "record", usage: "record start|stop|pause|resume|meter [RECORDER] [for SECONDS] [overwrite]", summary: "starts (a new numbered take unless overwrite), stops, pauses or resumes the session's recorders, or reads their levels"),
        Entry(verb: "transport", usage: "transport [play|stop|locate TIME|tempo BPM|meter N/D]", summary: "the session's transport clock: rolls, stops, moves (TIME as frames, 2.5s, 3|1|0 or 00:00:02:12), changes tempo or meter; alone, where it is"),
        Entry(verb: "automate", usage: "automate NODE PARAM TIME VALUE [TIME VALUE ...] [step] | automate clear [NODE [PARAM]]", summary: "gives a parameter a lane the transport plays (values joined by lines, or held with step), or clears lanes"),
        Entry(verb: "learn", usage: "learn [NODE PARAM|bypass [MIN MAX]] | learn clear [NODE [PARAM]]", summary: "maps the next MIDI controller moved (within the file timeout) to a parameter or bypass, 0...127 over MIN...MAX (the parameter's range); alone, the mappings"),
        Entry(verb: "undo", usage: "undo", summary: "takes back the last edit (add, remove, connect, disconnect, set, bypass, preset, property set, or a batch of them); up to 100"),
        Entry(verb: "redo", usage: "redo", summary: "makes the last undone edit again"),
        Entry(verb: "save", usage: "save [PATH], save --bundle FOLDER", summary: "writes the session (to the file it came from, or PATH); --bundle writes it into a new folder with copies of the files its nodes play or take"),
        Entry(verb: "load", usage: "load PATH", summary: "replaces the running graph with a session file's, glitch-free"),
        Entry(verb: "jack", usage: "jack connect|disconnect PORT PEER", summary: "connects one of our JACK ports to another client's"),
        Entry(verb: "program", usage: "program", summary: "the compiled program the audio thread runs: its steps, buffers, delays and latency"),
        Entry(verb: "status", usage: "status", summary: "the JACK client's state: xruns, DSP load, rate, period, threads and schedule, output peaks in dBFS since the last status"),
        Entry(verb: "watch", usage: "watch [off] [events=KIND,...] [meters=NODE[.BUS],...] [loudness] [rate=HZ] [time=SECONDS] [boundaries=T,...]", summary: "streams notifications to this connection"),
        Entry(verb: "mode", usage: "mode text|json", summary: "switches this connection to JSON lines or back"),
        Entry(verb: "bye", usage: "bye", summary: "closes this connection"),
    ]

    public static func entry(_ verb: String) -> Entry? { entries.first { $0.verb == verb } }
}
