extension NetworkResponse {
    /// What this answer's headers say about caching it.
    public var cacheHeaders: CacheHeaders { CacheHeaders(headers) }
}
