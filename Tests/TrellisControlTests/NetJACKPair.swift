import Foundation
import Glibc

/// Two network namespaces joined by a veth pair (10.77.0.1 and 10.77.0.2, no route out
/// but multicast, which NetJACK2 finds its master by): a master jackd on the dummy
/// backend with `netmanager` in the first, a `jackd -d net` slave in the second. Each
/// jackd has a unique name: the namespaces share /dev/shm, where JACK's servers live.
///
/// Every process is stopped in order (clients, then each jackd, given time to exit
/// cleanly: one killed outright keeps its slot in JACK's shared server registry) and
/// the namespaces are removed by `tearDown`, which `deinit` calls too, and a new pair
/// first removes the pairs a crashed test left.
final class NetJACKPair {
    static let prefix = "trellisnj"
    let tag: String
    let master: String
    let slave: String
    let folder: String
    private var masterProcess: Process?
    private var slaveProcess: Process?
    private var clients: [Process] = []
    private var torn = false

    var masterNamespace: String { tag + "a" }
    var slaveNamespace: String { tag + "b" }

    init(folder: String) throws {
        Self.removeStale()
        tag = Self.prefix + String(UUID().uuidString.prefix(4)).lowercased()
        master = tag + "M"
        slave = tag + "S"
        self.folder = folder
        do {
            try Self.run(["ip", "netns", "add", masterNamespace])
            try Self.run(["ip", "netns", "add", slaveNamespace])
            try Self.run(["ip", "link", "add", tag + "va", "type", "veth", "peer", "name", tag + "vb"])
            for (namespace, link, address) in [(masterNamespace, tag + "va", "10.77.0.1/24"), (slaveNamespace, tag + "vb", "10.77.0.2/24")] {
                try Self.run(["ip", "link", "set", link, "netns", namespace])
                try Self.run(["ip", "-n", namespace, "addr", "add", address, "dev", link])
                try Self.run(["ip", "-n", namespace, "link", "set", "lo", "up"])
                try Self.run(["ip", "-n", namespace, "link", "set", link, "up"])
                try Self.run(["ip", "-n", namespace, "route", "add", "224.0.0.0/4", "dev", link])
            }
        } catch {
            tearDown()
            throw error
        }
    }

    deinit { tearDown() }

    /// Starts the master (dummy backend, `period` frames at 48 kHz) and loads netmanager.
    func startMaster(period: Int) throws {
        masterProcess = try spawn(in: masterNamespace, server: master, ["jackd", "--no-realtime", "-n", master, "-d", "dummy", "-r", "48000", "-p", "\(period)"], log: "master.log")
        try waitFor("master \(master) to accept clients", seconds: 10) { self.ports(on: .master) != nil }
        try Self.run(["ip", "netns", "exec", masterNamespace, "env", "JACK_DEFAULT_SERVER=\(master)", "jack_load", "netmanager"])
    }

    /// Starts the slave with network latency `latency` cycles; returns once the master
    /// lists its ports.
    func startSlave(latency: Int) throws {
        slaveProcess = try spawn(in: slaveNamespace, server: slave, ["jackd", "-S", "--no-realtime", "-n", slave, "-d", "net", "-l", "\(latency)", "-n", "slave"], log: "slave.log")
        try waitForSlaveOnMaster(seconds: 15)
    }

    func waitForSlaveOnMaster(seconds: Double) throws {
        try waitFor("the slave's ports on the master", seconds: seconds) { self.ports(on: .master)?.contains("slave:from_slave_1") == true }
    }

    /// Stops the master cleanly: netmanager unloaded first, or jackd takes seconds to exit.
    func stopMaster() {
        _ = try? Self.run(["timeout", "-k", "2", "3", "ip", "netns", "exec", masterNamespace, "env", "JACK_DEFAULT_SERVER=\(master)", "jack_unload", "netmanager"])
        if let masterProcess { Self.stop(masterProcess, seconds: 15) }
        masterProcess = nil
    }

    enum Side { case master, slave }

    /// A process in one side's namespace, its server chosen by JACK_DEFAULT_SERVER; its
    /// output goes to `log` in the folder.
    func spawn(on side: Side, _ arguments: [String], log: String) throws -> Process {
        let process = try spawn(in: side == .master ? masterNamespace : slaveNamespace, server: side == .master ? master : slave, arguments, log: log)
        clients.append(process)
        return process
    }

    /// The ports on one side's server (with `-c`, each followed by its connections), or
    /// nil when it does not answer.
    func ports(on side: Side, connections: Bool = false) -> [String]? {
        let (status, output) = (try? Self.output(["ip", "netns", "exec", side == .master ? masterNamespace : slaveNamespace,
                                                   "env", "JACK_DEFAULT_SERVER=\(side == .master ? master : slave)", "jack_lsp"] + (connections ? ["-c"] : []))) ?? (1, "")
        guard status == 0 else { return nil }
        return output.split(separator: "\n").map { String($0) }
    }

    func run(on side: Side, _ arguments: [String]) throws {
        try Self.run(["ip", "netns", "exec", side == .master ? masterNamespace : slaveNamespace,
                      "env", "JACK_DEFAULT_SERVER=\(side == .master ? master : slave)"] + arguments)
    }

    func log(_ name: String) -> String { (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? "" }

    /// Clients first, then the slave, then the master; then the namespaces.
    func tearDown() {
        guard !torn else { return }
        torn = true
        for client in clients.reversed() { Self.stop(client, seconds: 5) }
        if let slaveProcess { Self.stop(slaveProcess, seconds: 15) }
        stopMaster()
        Self.remove(slaveNamespace)
        Self.remove(masterNamespace)
    }

    private func spawn(in namespace: String, server: String, _ arguments: [String], log: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip", "netns", "exec", namespace, "env", "JACK_DEFAULT_SERVER=\(server)"] + arguments
        let path = folder + "/" + log
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.run()
        return process
    }

    private func waitFor(_ what: String, seconds: Double, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw TestFailure("waited \(seconds) s for \(what); master: \(log("master.log").suffix(800)) slave: \(log("slave.log").suffix(800))") }
            usleep(100_000)
        }
    }

    /// SIGTERM, then SIGKILL after `seconds`. (`ip netns exec` execs, so the pid is the program's.)
    private static func stop(_ process: Process, seconds: Double) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Kills what runs in `namespace` (clients before jackd) and deletes it.
    private static func remove(_ namespace: String) {
        guard let (_, list) = try? output(["ip", "netns", "list"]), list.split(separator: "\n").contains(where: { $0.split(separator: " ").first.map(String.init) == namespace }) else { return }
        let pids = ((try? output(["ip", "netns", "pids", namespace]))?.1 ?? "").split(separator: "\n").compactMap { Int32($0) }
        let isServer = { (pid: Int32) in ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").hasPrefix("jackd") }
        for group in [pids.filter { !isServer($0) }, pids.filter(isServer)] {
            for pid in group { kill(pid, SIGTERM) }
            let deadline = Date().addingTimeInterval(15)
            while group.contains(where: { kill($0, 0) == 0 }) && Date() < deadline { usleep(100_000) }
            for pid in group where kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        }
        _ = try? run(["ip", "netns", "del", namespace])
    }

    /// Pairs a crashed test run left behind.
    private static func removeStale() {
        guard let (_, list) = try? output(["ip", "netns", "list"]) else { return }
        for line in list.split(separator: "\n") {
            guard let name = line.split(separator: " ").first.map(String.init), name.hasPrefix(prefix) else { continue }
            remove(name)
        }
    }

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let (status, text) = try output(arguments)
        guard status == 0 else { throw TestFailure("\(arguments.joined(separator: " ")) failed (\(status)): \(text)") }
        return text
    }

    static func output(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // Every tool gets a deadline that ends in SIGKILL: a tool that blocks SIGTERM
        // (jack_unload did) must not hold the suite.
        let deadline = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: deadline)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        deadline.cancel()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
