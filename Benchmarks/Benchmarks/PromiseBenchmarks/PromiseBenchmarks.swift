import Benchmark
import Depot
import Dispatch

// The shapes of google/promises' benchmark, beside Dispatch and Task baselines: wall time and
// mallocs per operation. Ratios for the same shapes come from `swift run -c release Ratios`.

let serial = DispatchQueue(label: "bench.serial")
let concurrent = DispatchQueue(label: "bench.concurrent", attributes: .concurrent)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        maxDuration: .seconds(2)
    )

    Benchmark("Dispatch, 1 block") { benchmark in
        let semaphore = DispatchSemaphore(value: 0)
        for _ in benchmark.scaledIterations {
            serial.async { semaphore.signal() }
            semaphore.wait()
        }
    }

    Benchmark("Task, 1 hop") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(await Task.detached { 1 }.value)
        }
    }

    for blocks in 1...3 {
        Benchmark("Depot, \(blocks) block(s)") { benchmark in
            let semaphore = DispatchSemaphore(value: 0)
            for _ in benchmark.scaledIterations {
                var promise = Promise(0)
                for _ in 1..<blocks { promise = promise.map(on: serial) { $0 + 1 } }
                promise.done(on: serial) { _ in semaphore.signal() }
                semaphore.wait()
            }
        }
    }

    // Allocations per chained step: this shape's mallocs per operation, less a 1-block shape's, over 100.
    Benchmark("Depot, 100 chained steps", configuration: .init(scalingFactor: .one)) { benchmark in
        let semaphore = DispatchSemaphore(value: 0)
        for _ in benchmark.scaledIterations {
            let (start, resolver) = Promise<Int>.pending()
            var promise = start
            for _ in 0..<100 { promise = promise.map(on: serial) { $0 + 1 } }
            promise.done(on: serial) { _ in semaphore.signal() }
            resolver.fulfill(0)
            semaphore.wait()
        }
    }

    Benchmark("Dispatch, 10,000 concurrent", configuration: .init(scalingFactor: .one)) { benchmark in
        for _ in benchmark.scaledIterations {
            let group = DispatchGroup()
            for _ in 0..<10_000 { concurrent.async(group: group) {} }
            group.wait()
        }
    }

    Benchmark("Depot, 10,000 concurrent", configuration: .init(scalingFactor: .one)) { benchmark in
        for _ in benchmark.scaledIterations {
            let group = DispatchGroup()
            let pendings = (0..<10_000).map { _ in Promise<Int>.pending() }
            for pending in pendings {
                group.enter()
                pending.promise.done(on: concurrent) { _ in group.leave() }
            }
            for (index, pending) in pendings.enumerated() { pending.resolver.fulfill(index) }
            group.wait()
        }
    }
}
