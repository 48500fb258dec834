import Foundation

extension NetworkRequest {
    /// Whether the request carries a validator (`If-None-Match` or `If-Modified-Since`): a `304`
    /// answers it as a success (the stored copy is current), never as an error.
    public var isConditional: Bool {
        headers.firstValue("if-none-match") != nil || headers.firstValue("if-modified-since") != nil
    }
}
