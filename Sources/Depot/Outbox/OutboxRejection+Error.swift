import Foundation

extension OutboxRejection {
    /// The refusal as the error a call reports: `.notFound` for a 404, `.conflict` for a 409 or
    /// 412, `.serverIDUnknown` for a 2xx (a create the server applied without naming its id, the
    /// only success an entry is moved aside for), `.status` for any other status (and for none),
    /// with the server's status and body.
    func error(prefix: String = "") -> DepotError {
        let code: DepotError.Code =
            switch status {
            case 404?: .notFound
            case 409?, 412?: .conflict
            case (200..<300)?: .serverIDUnknown
            default: .status
            }
        return DepotError(code, prefix + message, status: status, responseBody: body.isEmpty ? nil : body)
    }
}
