import Depot
import DepotTesting
import Foundation

// Whose write it is (``CheckServerShape/declaresAccounts``): each session declares its account,
// the forwarder sends through the signed-in one, and a write made as one account is applied on
// the server only under that account.

extension CheckApp {
    /// The account an interceptor update declares: `account` in rounds whose sessions declare
    /// theirs, else none.
    func declaredAccount(_ account: String) -> String? {
        program.shape.declaresAccounts ? account : nil
    }

    /// `WRONG ACCOUNT`: a write the server received under another account's credential than the
    /// one the app made it as (each write's value names the account that made it, ``madeAs``;
    /// the `Authorization` header names the account whose token it carried, `Bearer A-2`). Judged
    /// in rounds whose sessions declare their account: there no entry goes under another's.
    func judgeWriteAccounts(_ outcome: inout CheckRunner.Outcome) {
        guard program.shape.declaresAccounts, program.shape.refreshesTokens else { return }
        for request in stub.requests where ["POST", "PUT", "PATCH"].contains(request.method) {
            guard request.path != "/token", let json = request.json,
                let token = request.header("Authorization").map({ $0.dropFirst("Bearer ".count) })
            else { continue }
            let account = String(token.prefix { $0 != "-" })
            for value in Self.values(in: json) {
                guard let maker = madeAs[value], maker != account else { continue }
                outcome.violations.append(
                    CheckViolation(
                        kind: "WRONG ACCOUNT", step: nil,
                        message:
                            "\(request.method) \(request.path) carried \(value), written as \(maker), under \(token)"
                    ))
            }
        }
    }

    /// Every `value` member in `json`, however deep (a batch's operations).
    static func values(in json: JSON) -> [String] {
        switch json {
        case .object(let object):
            let own = object["value"]?.stringValue.map { [$0] } ?? []
            return own + object.filter { $0.key != "value" }.flatMap { values(in: $0.value) }
        case .array(let array):
            return array.flatMap { values(in: $0) }
        default:
            return []
        }
    }
}
