import Foundation

/// Where the store remembers which lists it holds the server's answer for: one synced record per
/// collection and query, in a collection of Depot's own, written when a local-first
/// ``CRUDNetworkingStorageRepository/readAll(query:)`` has stored the server's list. Until then a
/// local-first list asks the server first: an empty store is not an empty list.
enum FilledLists {
    static let collection = "__depot_filled_lists"

    /// The record id of the list `query` of `collection`: the collection's length first, so no
    /// two pairs meet.
    static func key(collection: String, query: [URLQueryItem]) -> String {
        "\(collection.utf8.count):" + PullCursors.id(collection: collection, query: query)
    }
}

extension CRUDNetworkingStorageRepository {
    /// A local-first ``readAll(query:)`` (a rule with `.local` as its target, `.remote` as its
    /// fallback, and `synchronize`): the first time a query is read, the server's list is fetched
    /// and stored (the list remembered as filled), then the store answers, with the pending local
    /// writes on top. When the server cannot give the list, the store answers with what it holds
    /// and ``Sourced/synchronizationError`` says why the list may be incomplete; the next read
    /// asks again.
    func readAllFillingFirst(query: [String: String]) -> Promise<Sourced<[Entity]>> {
        let storage = self.storage
        let key = FilledLists.key(collection: collection, query: query.sortedQueryItems)
        let repository = self
        return Promise {
            // A store that cannot say asks the server (its answer shows the store's failure).
            let filled = ((try? await storage.fetch(collection: FilledLists.collection, id: key)) ?? nil) != nil
            guard !filled else { return try await repository.readAllThrough(query: query).value }
            var failure: DepotError?
            do {
                let fetched = try await repository.readAllThrough(query: query, rule: Rule(target: .remote), fills: key)
                    .value
                failure = fetched.synchronizationError
            } catch let error as DepotError where !error.isCancellation {
                failure = error
            }
            var answer = try await repository.readAllThrough(query: query).value
            if answer.synchronizationError == nil { answer.synchronizationError = failure }
            return answer
        }
    }
}
