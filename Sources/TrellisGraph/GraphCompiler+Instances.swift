import TrellisCore
import TrellisEngine
import TrellisUnits

extension GraphCompiler {
    /// The instances of a unit that runs one per channel, when it can be laid out so:
    /// initialized, one instance for each channel of its one input and output bus.
    static func instances(of unit: any AudioUnit) -> [UnitRealtime]? {
        guard let unit = unit as? any PerChannelInstances, unit.isInitialized, unit.afterInstancesKernel != nil,
              unit.elementCount(.input) == 1, unit.elementCount(.output) == 1,
              let channels = try? unit.format(scope: .input, element: 0).channelCount
        else { return nil }
        let instances = unit.instanceRealtimes
        return instances.count == channels ? instances : nil
    }

    /// Each instance on its channel: a one-buffer bus naming channel k's buffer of the
    /// unit's input and output (no copy), its own slot and render step, the unit's
    /// bypass and events; then the unit's own step, which publishes the instances'
    /// meters as its values and is where its events are routed.
    func layOutInstances(_ node: FlatNode, input: Int, output: Int, in plan: inout ProgramPlan) {
        let unit = node.unit
        let instances = Self.instances(of: unit)!
        let own = unit.realtime
        let ownSlot = plan.units.count + instances.count
        for (channel, instance) in instances.enumerated() {
            let channelIn = plan.addBus(buffers: [plan.buses[input].buffers[channel]], viewOf: input)
            let channelOut = plan.addBus(buffers: [plan.buses[output].buffers[channel]], viewOf: output)
            plan.units.append(.init(
                unit: unit, name: "\(node.name) [\(channel + 1)/\(instances.count)]", inputs: [channelIn], outputs: [channelOut],
                realtime: UnitRealtime(unitID: own.unitID, kernel: instance.kernel, values: instance.values, bypass: own.bypass),
                eventsOf: ownSlot))
            plan.operations.append(.render(unit: Int32(plan.units.count - 1)))
        }
        plan.units.append(.init(
            unit: unit, name: node.name, inputs: [], outputs: [], checksOutput: false,
            realtime: UnitRealtime(
                unitID: own.unitID, kernel: (unit as! any PerChannelInstances).afterInstancesKernel!, values: own.values,
                bypass: own.bypass)))
        plan.operations.append(.render(unit: Int32(plan.units.count - 1)))
    }
}
