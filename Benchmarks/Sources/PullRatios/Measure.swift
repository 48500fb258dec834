import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Timing helpers: every figure is a median of rounds, printed as a ratio against a baseline
// measured in the same run.

func median(_ rounds: Int = 7, _ body: () async throws -> Duration) async rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<rounds { samples.append(try await body().seconds) }
    return samples.sorted()[rounds / 2]
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

func time(_ body: () async throws -> Void) async rethrows -> Duration {
    let start = ContinuousClock.now
    try await body()
    return ContinuousClock.now - start
}

func row(_ name: String, _ seconds: Double, per operations: Int, baseline: Double) {
    let micro = seconds / Double(operations) * 1e6
    let rate = Double(operations) / seconds
    print(
        name.padding(toLength: 50, withPad: " ", startingAt: 0),
        String(format: "%9.3f µs/op %9.0f op/s   %5.2fx", micro, rate, seconds / baseline)
    )
}

/// The process's peak resident set in MB (`getrusage`'s `ru_maxrss`: kilobytes on Linux, bytes on
/// Darwin).
func peakResidentMB() -> Double {
    var usage = rusage()
    #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        return Double(usage.ru_maxrss) / 1_048_576
    #else
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_maxrss) / 1024
    #endif
}

/// The CPU time this thread spends in `body`, in seconds.
func cpuTime(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
    let start = now()
    try body()
    return now() - start
}

/// The middle of `samples`.
func median(of samples: [Double]) -> Double { samples.sorted()[samples.count / 2] }

/// This process's user and system CPU time so far, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
    #else
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
