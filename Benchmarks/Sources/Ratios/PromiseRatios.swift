import Depot
import Dispatch
import Foundation

// google/promises shapes beside Dispatch and Task baselines.

@MainActor func promiseRatios() async {
    let serial = DispatchQueue(label: "ratios.serial")
    let concurrent = DispatchQueue(label: "ratios.concurrent", attributes: .concurrent)
    let iterations = 20_000
    print(
        "== Promise: resolved promise, N chained blocks on a serial queue, waiting each iteration (\(iterations) iterations)"
    )
    let semaphore = DispatchSemaphore(value: 0)
    let dispatch1 = await median {
        await time { for _ in 0..<iterations { serial.async { semaphore.signal() }; semaphore.wait() } }
    }
    let dispatch3 = await median {
        await time {
            for _ in 0..<iterations {
                serial.async { serial.async { serial.async { semaphore.signal() } } }
                semaphore.wait()
            }
        }
    }
    let task = await median { await time { for _ in 0..<iterations { _ = await Task.detached { 1 }.value } } }
    row("Dispatch, 1 block (baseline)", dispatch1, per: iterations, baseline: dispatch1)
    row("Dispatch, 3 nested blocks", dispatch3, per: iterations, baseline: dispatch1)
    row("Task, 1 hop", task, per: iterations, baseline: dispatch1)
    for blocks in 1...3 {
        let depot = await median {
            await time {
                for _ in 0..<iterations {
                    var promise = Promise(0)
                    for _ in 1..<blocks { promise = promise.map(on: serial) { $0 + 1 } }
                    promise.done(on: serial) { _ in semaphore.signal() }
                    semaphore.wait()
                }
            }
        }
        row("Depot, \(blocks) block(s)", depot, per: iterations, baseline: dispatch1)
    }

    print(
        "== Promise: 10,000 pending promises resolved, one block each on a concurrent queue (wall clock, and the process's CPU time, user + system, every thread)"
    )
    let count = 10_000
    let dispatchConcurrent = await medianWithCPU {
        await time {
            let group = DispatchGroup()
            for _ in 0..<count { concurrent.async(group: group) {} }
            group.wait()
        }
    }
    let taskConcurrent = await medianWithCPU {
        await time {
            await withTaskGroup(of: Void.self) { group in for _ in 0..<count { group.addTask {} } }
        }
    }
    let depotConcurrent = await medianWithCPU {
        let group = DispatchGroup()
        let pendings = (0..<count).map { _ in Promise<Int>.pending() }
        return await time {
            for pending in pendings {
                group.enter()
                pending.promise.done(on: concurrent) { _ in group.leave() }
            }
            for (index, pending) in pendings.enumerated() { pending.resolver.fulfill(index) }
            group.wait()
        }
    }
    cpuRow("Dispatch, 10,000 concurrent (baseline)", dispatchConcurrent, per: count, baseline: dispatchConcurrent)
    cpuRow("Task group, 10,000 tasks", taskConcurrent, per: count, baseline: dispatchConcurrent)
    cpuRow("Depot, 10,000 concurrent", depotConcurrent, per: count, baseline: dispatchConcurrent)
}

/// The median wall-clock time of `body`'s rounds and, separately, the median CPU time the whole
/// process (every thread: the caller, Dispatch's workers) used during them, in seconds. On a
/// loaded machine the CPU time is the steadier figure: it does not count time spent waiting for
/// a core.
@MainActor func medianWithCPU(
    _ rounds: Int = 7, _ body: () async -> Duration
) async -> (wall: Double, cpu: Double) {
    var walls: [Double] = []
    var cpus: [Double] = []
    for _ in 0..<rounds {
        let start = processCPUSeconds()
        walls.append(await body().seconds)
        cpus.append(processCPUSeconds() - start)
    }
    return (walls.sorted()[rounds / 2], cpus.sorted()[rounds / 2])
}

/// This process's CPU time so far (user + system, every thread), in seconds.
func processCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// ``row(_:_:per:baseline:)`` with a CPU-time column: µs of CPU per operation and its ratio to
/// the baseline's.
func cpuRow(
    _ name: String, _ measured: (wall: Double, cpu: Double), per operations: Int,
    baseline: (wall: Double, cpu: Double)
) {
    let micro = measured.wall / Double(operations) * 1e6
    let cpuMicro = measured.cpu / Double(operations) * 1e6
    print(
        name.padding(toLength: 50, withPad: " ", startingAt: 0),
        String(
            format: "%9.3f µs/op %9.0f op/s   %5.2fx   cpu %7.3f µs/op %5.2fx", micro,
            Double(operations) / measured.wall, measured.wall / baseline.wall, cpuMicro, measured.cpu / baseline.cpu)
    )
}
