#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many times longer than usual a test may wait for an event on this run: a time limit that
/// fits a plain debug build is too short under ThreadSanitizer, which runs code 5–15 times slower,
/// and a run of the whole suite in parallel multiplies that. Tests scale their timeouts by it
/// instead of raising them for every run.
///
/// ```swift
/// let session = NetworkingSession(
///     url: server.url, configuration: SessionConfiguration(timeout: TestTimeScale.scaled(.seconds(10))))
/// ```
public enum TestTimeScale {
    /// `DEPOT_TEST_TIME_SCALE` when it is set to a whole number from 1 to 100; else 10 when the
    /// process runs under ThreadSanitizer (its runtime is loaded: `__tsan_init` resolves), else 1.
    public static let factor: Int = {
        if let text = getenv("DEPOT_TEST_TIME_SCALE").map({ String(cString: $0) }),
            let value = Int(text), (1...100).contains(value)
        {
            return value
        }
        return isThreadSanitized ? 10 : 1
    }()

    /// Whether the process runs under ThreadSanitizer: a fact of the loaded code (the sanitizer's
    /// runtime defines `__tsan_init`), not a guess from timing.
    public static let isThreadSanitized: Bool = {
        #if canImport(Darwin)
            let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
            let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        return dlsym(everywhere, "__tsan_init") != nil
    }()

    /// `duration` times ``factor``.
    public static func scaled(_ duration: Duration) -> Duration {
        duration * factor
    }
}
