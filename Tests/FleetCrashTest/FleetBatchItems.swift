import Depot
import Foundation
import SoakSupport

/// The client-id collection as the `batch` replica pushes it: `synchronize()` sends its changes in
/// batches to `POST /items/collection` (deletes one by one), and its pull reads nothing (a filter
/// no item matches), so the replica only pushes, beside the forwarders.
struct FleetBatchItems: SynchronizableRepository {
    /// ``FleetItem``.
    typealias Entity = FleetItem
    /// The transport.
    let store: Networking
    /// The store every replica shares.
    let storage: Storage
    /// `items`.
    let path = FleetItems.clientIDs
    /// Local writes only: the replicas send them.
    let strategy = Strategy(Rule(target: .local, synchronize: false))
    /// Batches of 20 to the batch route; a pull that matches nothing.
    let synchronization = SynchronizationConfiguration(
        batchSize: 20, query: ["name": "-"], pushMode: .batch(Route(.post, FleetItems.clientIDs + "/collection")))
}
