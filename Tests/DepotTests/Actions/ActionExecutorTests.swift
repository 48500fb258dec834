import Depot
import DepotTesting
import Foundation
import Testing

@Suite struct ActionExecutorTests {
    @Test("execute returns at once; the result, state and statistics follow the action")
    func runsAnAction() async throws {
        let executor = ActionExecutor(maxConcurrent: 2)
        let log = ProbeLog()
        let gate = Gate()
        // When
        let proxy = executor.execute(Probe(name: "one", log: log, gate: gate))
        // Then: it has not ended, since it waits for the gate
        #expect(!proxy.state.isTerminal)
        #expect(proxy.statistics.finished == nil && proxy.statistics.duration == nil)
        gate.open()
        #expect(try await proxy.result.value == 1)
        #expect(proxy.state == .finished)
        let statistics = proxy.statistics
        let started = try #require(statistics.started)
        let finished = try #require(statistics.finished)
        #expect(statistics.submitted <= started && started <= finished)
        #expect(try #require(statistics.duration) >= .zero)
        #expect(statistics.inserted == 1)
        #expect(proxy.name == "one" && proxy.id == ActionID(rawValue: 1))
        let kinds = await collect(proxy.events).map(\.kind.name)
        #expect(kinds == ["submitted", "started", "finished"])
    }

    @Test("a pending action cancelled never runs; cancel is idempotent")
    func cancelBeforeStart() async throws {
        let executor = ActionExecutor(maxConcurrent: 1)
        let log = ProbeLog()
        executor.suspend()
        let proxy = executor.execute(Probe(name: "never", log: log))
        #expect(proxy.state == .pending)
        // When
        proxy.cancel()
        proxy.cancel()
        // Then
        #expect(proxy.state == .cancelled)
        await #expect { try await proxy.result.value } throws: { ($0 as? DepotError)?.isCancellation == true }
        executor.resume()
        #expect(try await executor.execute(Probe(name: "after", log: log)).result.value == 1)
        #expect(!log.began("never") && log.began("after"))
        #expect(log.hooks("never") == 0)
        #expect(proxy.statistics.started == nil && proxy.statistics.duration == nil)
        #expect(proxy.statistics.finished != nil)
        #expect(await collect(proxy.events).map(\.kind.name) == ["submitted", "cancelled"])
    }

    @Test("a running action cancelled: its hook runs once, its task is cancelled, it ends cancelled")
    func cancelWhileRunning() async throws {
        let executor = ActionExecutor(maxConcurrent: 1)
        let log = ProbeLog()
        let proxy = executor.execute(Probe(name: "long", log: log, sleep: .seconds(600)))
        #expect(await eventuallyAsync { proxy.state == .executing && log.began("long") })
        // When: cancelled from several threads at once
        DispatchQueue.concurrentPerform(iterations: 8) { _ in proxy.cancel() }
        // Then
        await #expect { try await proxy.result.value } throws: { ($0 as? DepotError)?.isCancellation == true }
        #expect(proxy.state == .cancelled)
        #expect(log.hooks("long") == 1)
        #expect(log.lines == ["begin long", "end long"])
        #expect(proxy.statistics.duration != nil)
        #expect(await collect(proxy.events).map(\.kind.name) == ["submitted", "started", "cancelled"])
    }

    @Test("cancelling a finished action changes nothing; cancelling the result promise cancels the action")
    func cancelAfterFinishAndThroughThePromise() async throws {
        let executor = ActionExecutor()
        let log = ProbeLog()
        let done = executor.execute(Probe(name: "done", log: log))
        #expect(try await done.result.value == 1)
        done.cancel()
        #expect(done.state == .finished)
        #expect(try await done.result.value == 1)
        #expect(log.hooks("done") == 0)

        let long = executor.execute(Probe(name: "long", log: log, sleep: .seconds(600)))
        #expect(await eventuallyAsync { log.began("long") })
        long.result.cancel()
        #expect(await eventuallyAsync { long.state == .cancelled })
        #expect(log.hooks("long") == 1)
    }

    @Test("a failing action: its own error rejects the result, the state is failed")
    func failure() async throws {
        let executor = ActionExecutor(logger: quietLogger)
        let proxy = executor.execute(Probe(name: "bad", log: ProbeLog(), fails: true))
        await #expect(throws: ProbeFailure(name: "bad")) { try await proxy.result.value }
        #expect(proxy.state == .failed)
        let events = await collect(proxy.events)
        #expect(events.map(\.kind.name) == ["submitted", "started", "failed"])
        guard case .failed(let error) = events.last?.kind else { Issue.record("no failed event"); return }
        #expect(error as? ProbeFailure == ProbeFailure(name: "bad"))
    }

    @Test("the concurrency limit is never exceeded; the rest wait in order")
    func limit() async throws {
        let executor = ActionExecutor(maxConcurrent: 3)
        let log = ProbeLog()
        let gate = Gate()
        let proxies = (1...30).map { executor.execute(Probe(name: "\($0)", log: log, gate: gate, yields: 3)) }
        #expect(await eventuallyAsync { log.running == 3 })
        #expect(executor.runningCount == 3 && executor.pendingCount == 27)
        #expect(proxies[3...].allSatisfy { $0.state == .pending })
        #expect(log.lines.filter { $0.hasPrefix("begin") }.sorted() == ["begin 1", "begin 2", "begin 3"])
        gate.open()
        for proxy in proxies { #expect(try await proxy.result.value == 1) }
        #expect(log.mostRunning == 3)
        #expect(log.lines.count == 60)
    }

    @Test("actions with one serialization key run one at a time, in submission order")
    func serializationKeys() async throws {
        let executor = ActionExecutor(maxConcurrent: 4)
        let log = ProbeLog()
        var proxies: [ActionProxy<Int>] = []
        for index in 1...24 {
            let key: String? = [nil, "k", "j"][index % 3]
            let probe = Probe(
                name: "\(key ?? "free")-\(index)", serializationKey: key, log: log,
                sleep: .microseconds(index % 4 * 200),
                yields: index % 5)
            proxies.append(executor.execute(probe))
        }
        for proxy in proxies { #expect(try await proxy.result.value == 1) }
        for key in ["k", "j"] {
            let lines = log.lines.filter { $0.contains(" \(key)-") }
            let expected = (1...24).filter { [nil, "k", "j"][$0 % 3] == key }.flatMap {
                ["begin \(key)-\($0)", "end \(key)-\($0)"]
            }
            #expect(lines == expected)
        }
        #expect(log.mostRunning <= 4)
    }

    @Test("suspend holds new starts back until resume")
    func suspendAndResume() async throws {
        let executor = ActionExecutor(maxConcurrent: 2)
        let log = ProbeLog()
        executor.suspend()
        #expect(executor.isSuspended)
        let proxies = (1...3).map { executor.execute(Probe(name: "\($0)", log: log)) }
        #expect(proxies.allSatisfy { $0.state == .pending })
        #expect(executor.pendingCount == 3 && log.lines.isEmpty)
        executor.resume()
        for proxy in proxies { #expect(try await proxy.result.value == 1) }
        #expect(!executor.isSuspended)
    }

    @Test("shutdown(cancelPending: true) cancels what waits, waits for what runs, then refuses")
    func shutdownCancellingPending() async throws {
        let executor = ActionExecutor(maxConcurrent: 1)
        let log = ProbeLog()
        let gate = Gate()
        let running = executor.execute(Probe(name: "running", log: log, gate: gate))
        let waiting = (1...3).map { executor.execute(Probe(name: "waiting \($0)", log: log)) }
        #expect(await eventuallyAsync { log.began("running") })
        let returned = LockedValue(false)
        let shutdown = Task {
            await executor.shutdown(cancelPending: true)
            returned.withLock { $0 = true }
        }
        #expect(await eventuallyAsync { waiting.allSatisfy { $0.state == .cancelled } })
        #expect(!returned.withLock { $0 })
        #expect(running.state == .executing)
        // When the running action ends, the shutdown returns
        gate.open()
        await shutdown.value
        #expect(running.state == .finished)
        #expect(waiting.allSatisfy { !log.began($0.name) })
        let late = executor.execute(Probe(name: "late", log: log))
        #expect(late.state == .cancelled)
        await #expect { try await late.result.value } throws: { ($0 as? DepotError)?.isCancellation == true }
        #expect(!log.began("late"))
    }

    @Test("shutdown() runs what waits, even when suspended, and ends the event stream")
    func shutdownDraining() async throws {
        let executor = ActionExecutor(maxConcurrent: 1)
        let log = ProbeLog()
        let events = executor.events
        executor.suspend()
        let proxies = (1...3).map { executor.execute(Probe(name: "\($0)", log: log)) }
        await executor.shutdown()
        #expect(proxies.allSatisfy { $0.state == .finished })
        #expect(log.lines == ["begin 1", "end 1", "begin 2", "end 2", "begin 3", "end 3"])
        let seen = await collect(events)
        #expect(seen.count == 9)
        #expect(await collect(executor.events).isEmpty)
    }

    @Test("progress events arrive between started and the end, in order")
    func progress() async throws {
        let executor = ActionExecutor()
        let proxy = executor.execute(Probe(name: "steps", log: ProbeLog(), progressSteps: 5))
        _ = try await proxy.result.value
        let events = await collect(proxy.events)
        #expect(events.map(\.kind.name) == ["submitted", "started", "progress", "finished"])  // replay keeps the latest
        let live = ActionExecutor()
        let stream = live.events
        _ = try await live.execute(Probe(name: "steps", log: ProbeLog(), progressSteps: 5)).result.value
        await live.shutdown()
        let steps = await collect(stream).compactMap { event -> Int? in
            guard case .progress(let progress) = event.kind else { return nil }
            return progress.completed
        }
        #expect(steps == [1, 2, 3, 4, 5])
    }
}
