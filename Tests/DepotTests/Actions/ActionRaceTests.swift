import Depot
import Foundation
import Logging
import MetricsTestKit
import Testing

@Suite struct ActionRaceTests {
    @Test("cancels from many threads before, during and after each action: every life is valid and agrees")
    func hammer() async throws {
        // Every event is read after the run: a buffer for all of them.
        let executor = ActionExecutor(maxConcurrent: 4, logger: quietLogger, eventBufferLimit: 100_000)
        let log = ProbeLog()
        let events = executor.events
        let count = 400
        let proxies = (0..<count).map { index in
            executor.execute(
                Probe(
                    name: "\(index)", serializationKey: index % 7 == 0 ? "seven" : nil, log: log,
                    yields: index % 4, progressSteps: index % 3, fails: index % 11 == 0))
        }
        // When: two threads per action cancel the even ones while they wait, run or have ended
        let targets = proxies.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        DispatchQueue.concurrentPerform(iterations: targets.count * 2) { targets[$0 / 2].cancel() }
        await executor.shutdown()
        // Then
        var byAction: [ActionID: [ActionEvent]] = [:]
        for event in await collect(events) { byAction[event.action, default: []].append(event) }
        for (index, proxy) in proxies.enumerated() {
            let state = proxy.state
            let life = try #require(byAction[proxy.id]).map(\.kind.name)
            #expect(isValidLife(life), "\(proxy.name): \(life)")
            #expect(life.last == state.description, "\(proxy.name): \(life) but \(state)")
            #expect(await collect(proxy.events).map(\.kind.name).last == state.description)
            // It ran exactly when it started, and never ran after being cancelled pending
            #expect(log.began(proxy.name) == life.contains("started"), "\(proxy.name): \(life)")
            let result: Result<Int, any Error>
            do { result = .success(try await proxy.result.value) } catch { result = .failure(error) }
            switch (state, result) {
            case (.finished, .success(let value)): #expect(value == 1)
            case (.failed, .failure(let error)): #expect(error as? ProbeFailure == ProbeFailure(name: proxy.name))
            case (.cancelled, .failure(let error)): #expect((error as? DepotError)?.isCancellation == true)
            default: Issue.record("\(proxy.name) is \(state) with \(result)")
            }
            if index % 2 == 1 { #expect(state != .cancelled, "\(proxy.name) was never cancelled") }
            #expect(log.hooks(proxy.name) <= 1)
        }
        #expect(log.mostRunning <= 4)
        #expect(log.running == 0)
    }

    @Test("events reach swift-log and swift-metrics counters and timers")
    func logsAndMetrics() async throws {
        let metrics = TestMetrics()
        let capture = LogCapture()
        let logger = Logger(label: "test.actions") { _ in CapturingHandler(capture: capture) }
        let executor = ActionExecutor(maxConcurrent: 2, logger: logger, metricsFactory: metrics)
        let log = ProbeLog()
        executor.suspend()
        let cancelled = executor.execute(Probe(name: "Import", log: log))
        cancelled.cancel()
        executor.resume()
        _ = try await executor.execute(Probe(name: "Import", log: log)).result.value
        _ = try await executor.execute(Probe(name: "Import", log: log)).result.value
        _ = try? await executor.execute(Probe(name: "Import", log: log, fails: true)).result.value
        await executor.shutdown()
        let dimensions = [("action", "Import")]
        #expect(try metrics.expectCounter("depot.actions.submitted", dimensions).totalValue == 4)
        #expect(try metrics.expectCounter("depot.actions.started", dimensions).totalValue == 3)
        #expect(try metrics.expectCounter("depot.actions.finished", dimensions).totalValue == 2)
        #expect(try metrics.expectCounter("depot.actions.failed", dimensions).totalValue == 1)
        #expect(try metrics.expectCounter("depot.actions.cancelled", dimensions).totalValue == 1)
        let timer = try metrics.expectTimer("depot.actions.duration", dimensions + [("outcome", "finished")])
        #expect(timer.values.count == 2)
        let lines = capture.all
        #expect(lines.filter { $0.hasPrefix("action finished") }.count == 2)
        #expect(lines.filter { $0.hasPrefix("action failed") }.count == 1)
        #expect(lines.filter { $0.hasPrefix("action cancelled") }.count == 1)
        #expect(lines.allSatisfy { $0.contains("Import") })
    }
}

@Suite struct EventBufferTests {
    @Test("an event stream nobody reads keeps the newest 1,024 events, the last one included")
    func boundedBuffer() async throws {
        // Given: a subscriber that does not read while 700 actions emit 2,100 events
        let executor = ActionExecutor(maxConcurrent: 4)
        let stream = executor.events
        let log = ProbeLog()
        let proxies = (0..<700).map { executor.execute(Probe(name: "p\($0)", log: log)) }
        for proxy in proxies { _ = try await proxy.result.value }
        await executor.shutdown()
        // When
        let events = await collect(stream)
        // Then
        #expect(events.count == 1024)
        #expect(events.last?.kind.name == "finished")
    }
}
