/// A machine a `MachineLoop` feeds: fed an input at a time, it returns its effects in order.
public protocol TurnTaking {
    associatedtype Input
    associatedtype Effect
    mutating func handle(_ input: Input, at now: Duration) -> [Effect]
}

extension GuardMachine: TurnTaking {}

/// The loop that feeds a machine (`GuardMachine`, the broker's `BrokerLink`): one input at a time, and
/// what comes of its effects queued as the next inputs.
///
/// Its rule holds for every shell that runs it (the daemon's `GuardService`, the tests' shells and the
/// fuzz targets): what comes of an effect is fed once the machine is done with the input before, never
/// while it is in a turn. A class, so that an effect's performer may call `handle` again (the daemon's
/// do, from the callbacks of the IO they start): that only queues the input.
public final class MachineLoop<Machine: TurnTaking> {
    public private(set) var machine: Machine
    /// Inputs that came while the machine was in a turn, taken in order once it is done.
    private var pending: [Machine.Input] = []
    /// Whether a turn is under way: its input taken, its effects not all performed yet.
    private var inTurn = false

    public init(_ machine: Machine) {
        self.machine = machine
    }

    /// Queues `input`, then, unless a turn is under way, takes every input queued, in order: each at the
    /// time `now` says then, announced to `taking`, each of its effects given to `perform`, whose inputs
    /// are queued after those already queued.
    public func handle(
        _ input: Machine.Input, at now: () -> Duration, taking: (Machine.Input) -> Void = { _ in },
        perform: (Machine.Effect) -> [Machine.Input]
    ) {
        enqueue(input)
        while let (next, effects) = beginTurn(at: now) {
            taking(next)
            for effect in effects { pending += perform(effect) }
            endTurn()
        }
    }

    /// Queues `input`, for a shell whose turns outlast a call (`beginTurn`, `endTurn`).
    public func enqueue(_ input: Machine.Input) {
        pending.append(input)
    }

    /// Takes the next input queued, at the time `now` says, unless a turn is under way or none is
    /// queued: returns it with its effects. The turn lasts until `endTurn`, once they are performed.
    public func beginTurn(at now: () -> Duration) -> (input: Machine.Input, effects: [Machine.Effect])? {
        guard !inTurn, !pending.isEmpty else { return nil }
        inTurn = true
        let input = pending.removeFirst()
        return (input, machine.handle(input, at: now()))
    }

    /// The turn's effects are performed: the next input may be taken.
    public func endTurn() {
        inTurn = false
    }
}
