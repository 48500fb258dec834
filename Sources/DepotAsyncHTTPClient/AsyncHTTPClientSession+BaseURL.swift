#if AsyncHTTPClient
    import Depot

    /// The session's base URL lets a synchronization turn a `Link` header's absolute next-page URL
    /// back into a request path.
    extension AsyncHTTPClientSession: BaseURLNetworking {}
#endif
