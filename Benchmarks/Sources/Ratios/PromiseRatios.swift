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

    print("== Promise: 10,000 pending promises resolved, one block each on a concurrent queue")
    let count = 10_000
    let dispatchConcurrent = await median {
        await time {
            let group = DispatchGroup()
            for _ in 0..<count { concurrent.async(group: group) {} }
            group.wait()
        }
    }
    let taskConcurrent = await median {
        await time {
            await withTaskGroup(of: Void.self) { group in for _ in 0..<count { group.addTask {} } }
        }
    }
    let depotConcurrent = await median {
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
    row("Dispatch, 10,000 concurrent (baseline)", dispatchConcurrent, per: count, baseline: dispatchConcurrent)
    row("Task group, 10,000 tasks", taskConcurrent, per: count, baseline: dispatchConcurrent)
    row("Depot, 10,000 concurrent", depotConcurrent, per: count, baseline: dispatchConcurrent)
}
