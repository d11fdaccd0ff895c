/// The loop that feeds a `GuardMachine`: one input at a time, and what comes of its effects queued as
/// the next inputs.
///
/// Its rule holds for every shell that runs it (the daemon's `GuardService`, the tests' shells and the
/// fuzz targets): what comes of an effect is fed once the machine is done with the input before, never
/// while it is in a turn. A class, so that an effect's performer may call `handle` again (the daemon's
/// do, from the callbacks of the IO they start): that only queues the input.
public final class MachineLoop {
    public private(set) var machine: GuardMachine
    /// Inputs that came while the machine was in a turn, taken in order once it is done.
    private var pending: [GuardMachine.Input] = []
    /// Whether a turn is under way: its input taken, its effects not all performed yet.
    private var inTurn = false

    public init(_ machine: GuardMachine) {
        self.machine = machine
    }

    /// Queues `input`, then, unless a turn is under way, takes every input queued, in order: each at the
    /// time `now` says then, announced to `taking`, each of its effects given to `perform`, whose inputs
    /// are queued after those already queued.
    public func handle(
        _ input: GuardMachine.Input, at now: () -> Duration, taking: (GuardMachine.Input) -> Void = { _ in },
        perform: (GuardMachine.Effect) -> [GuardMachine.Input]
    ) {
        enqueue(input)
        while let (next, effects) = beginTurn(at: now) {
            taking(next)
            for effect in effects { pending += perform(effect) }
            endTurn()
        }
    }

    /// Queues `input`, for a shell whose turns outlast a call (`beginTurn`, `endTurn`).
    public func enqueue(_ input: GuardMachine.Input) {
        pending.append(input)
    }

    /// Takes the next input queued, at the time `now` says, unless a turn is under way or none is
    /// queued: returns it with its effects. The turn lasts until `endTurn`, once they are performed.
    public func beginTurn(at now: () -> Duration) -> (input: GuardMachine.Input, effects: [GuardMachine.Effect])? {
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
