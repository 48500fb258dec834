import Depot
import Foundation

// Lists whose `Int` ids the server assigns, and children that name them (rounds with
// ``CheckServerShape/childCollection``, issue 42 #13): the entities, their repositories, the
// steps and how a program draws them.

/// A list: its id the server's (7, 8, …), or one Depot made while the server could not be asked.
public struct CheckList: Codable, Identifiable, Sendable, Equatable {
    /// The server's id, or a temporary one Depot made.
    public var id: Int
    /// `l<handle>`: names the list for the judges.
    public var title: String

    /// Makes a list.
    public init(id: Int, title: String) {
        self.id = id
        self.title = title
    }
}

/// A child of a ``CheckList``: its id the app's (`c<handle>`), naming its list in `listID`.
public struct CheckChild: Codable, Identifiable, Sendable, Equatable {
    /// The app's id.
    public var id: String
    /// Unique per write (`t<step>`): tells which write the server holds.
    public var title: String
    /// The id of the list it belongs to, as the app holds it.
    public var listID: Int

    /// Makes a child.
    public init(id: String, title: String, listID: Int) {
        self.id = id
        self.title = title
        self.listID = listID
    }
}

/// The checker's repository over `lists`.
public struct CheckLists: CRUDNetworkingStorageRepository, SynchronizableRepository {
    /// Lists.
    public typealias Entity = CheckList
    /// The lists' session.
    public let store: Networking
    /// The round's store.
    public let storage: Storage
    /// `lists`.
    public let path = "lists"
    /// The step's strategy.
    public var strategy: Strategy

    /// Makes the repository.
    public init(store: Networking, storage: Storage, strategy: Strategy) {
        self.store = store
        self.storage = storage
        self.strategy = strategy
    }
}

/// The checker's repository over `children`, declaring that `listID` names a list.
public struct CheckChildren: CRUDNetworkingStorageRepository, SynchronizableRepository {
    /// Children.
    public typealias Entity = CheckChild
    /// The lists' session.
    public let store: Networking
    /// The round's store.
    public let storage: Storage
    /// `children`.
    public let path = "children"
    /// The step's strategy.
    public var strategy: Strategy
    /// `listID` holds the id of a list.
    public var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration()
        configuration.references = [EntityReference(key: "listID", collection: "lists")]
        return configuration
    }

    /// Makes the repository.
    public init(store: Networking, storage: Storage, strategy: Strategy) {
        self.store = store
        self.storage = storage
        self.strategy = strategy
    }
}

/// A step of the lists and their children. Lists and children are named by handle (`l2`, `c3`):
/// the app holds the last answer it got for each.
public enum CheckChildAction: Sendable, Hashable {
    /// `lists.create(["title": "l<list>"])`: no id, the server assigns one (Depot makes a
    /// temporary one when the server cannot be asked).
    case createList(list: Int)
    /// `children.create(CheckChild(id: "c<child>", title:, listID: <the id the app holds for list>))`.
    case createChild(child: Int, list: Int, title: String)
    /// `children.update(CheckChild(id: "c<child>", title:, listID: <the id the app holds for list>))`.
    case moveChild(child: Int, list: Int, title: String)
    /// `lists.delete(id: <the id the app holds for list>)`; the app keeps holding the list (a
    /// child may still name it).
    case deleteList(list: Int)
    /// `lists.synchronize()` (`lists`) or `children.synchronize()`: the push tries the batch
    /// route first (the server has none), then goes entity by entity; then a pull.
    case synchronize(lists: Bool)
    /// A flush of the lists' and children's forwarder.
    case flush

    /// The faults a step of lists may meet.
    static let faults: [CheckFault] = [.drop, .unavailable, .applyThenDrop, .serverError]

    /// Adds steps of lists and children to `program`, drawn (with the shape's flag) from a
    /// generator of their own apart from the rest of the program, so the programs of seeds found
    /// before them keep their steps: in one round of four, after about a third of the steps, so
    /// lists are made offline and online, and children name lists whose creates are queued.
    static func draw(into program: inout CheckProgram, seed: UInt64) {
        var random = SeededGenerator(seed: seed ^ 0x4348_494C_442D_4C53)
        program.shape.childCollection = Int.random(in: 0..<4, using: &random) == 0
        guard program.shape.childCollection else { return }
        var steps: [CheckStep] = []
        var lists: [Int] = []
        var children: [Int] = []
        var offline = false
        func add(_ action: CheckChildAction) {
            var step = CheckStep(.child(action))
            step.strategy = Bool.random(using: &random) ? .localFirst : .remoteFirst
            if !offline, action != .flush, Int.random(in: 0..<100, using: &random) < 15 {
                step.fault = faults[Int.random(in: 0..<faults.count, using: &random)]
            }
            steps.append(step)
        }
        for step in program.steps {
            steps.append(step)
            if step.action == .offline { offline = true }
            if step.action == .online { offline = false }
            guard Int.random(in: 0..<100, using: &random) < 35 else { continue }
            let roll = Int.random(in: 0..<100, using: &random)
            if lists.isEmpty || roll < 25 {
                let list = lists.count + 1
                lists.append(list)
                add(.createList(list: list))
                // Often a child of it at once (issue 42 #13: a list, then an item naming it).
                if Bool.random(using: &random) {
                    children.append(children.count + 1)
                    add(.createChild(child: children.count, list: list, title: "t\(steps.count)"))
                }
                continue
            }
            let list = Bool.random(using: &random) ? lists[lists.count - 1] : lists.randomElement(using: &random)!
            switch roll {
            case 25..<70 where roll < 50 || children.isEmpty:
                children.append(children.count + 1)
                add(.createChild(child: children.count, list: list, title: "t\(steps.count)"))
            case 50..<70:
                add(.moveChild(child: children.randomElement(using: &random)!, list: list, title: "t\(steps.count)"))
            case 70..<82: add(.deleteList(list: list))
            case 82..<90: add(.synchronize(lists: Bool.random(using: &random)))
            default: add(.flush)
            }
        }
        program.steps = steps
    }
}

extension CheckRender {
    /// The Swift for a step of lists and children.
    static func childCall(_ action: CheckChildAction, step: CheckStep) -> String {
        let lists = "lists(.\(step.strategy.rawValue))"
        let children = "children(.\(step.strategy.rawValue))"
        return switch action {
        case .createList(let list):
            "var l\(list) = try await \(lists).create([\"title\": \"l\(list)\"]).value.value"
        case .createChild(let child, let list, let title):
            "var c\(child) = try await \(children).create(CheckChild(id: \"c\(child)\", title: \"\(title)\", listID: l\(list).id)).value.value"
        case .moveChild(let child, let list, let title):
            "c\(child) = try await \(children).update(CheckChild(id: \"c\(child)\", title: \"\(title)\", listID: l\(list).id)).value.value"
        case .deleteList(let list): "_ = try await \(lists).delete(id: l\(list).id).value"
        case .synchronize(let ofLists): "_ = try await \(ofLists ? lists : children).synchronize().value"
        case .flush: "_ = try await Forwarder(storage: storage, repositories: [lists, children]).flush().value"
        }
    }

    /// A step of lists and children as a Swift literal.
    static func childAction(_ action: CheckChildAction) -> String {
        switch action {
        case .createList(let list): ".createList(list: \(list))"
        case .createChild(let child, let list, let title):
            ".createChild(child: \(child), list: \(list), title: \"\(title)\")"
        case .moveChild(let child, let list, let title):
            ".moveChild(child: \(child), list: \(list), title: \"\(title)\")"
        case .deleteList(let list): ".deleteList(list: \(list))"
        case .synchronize(let ofLists): ".synchronize(lists: \(ofLists))"
        case .flush: ".flush"
        }
    }
}
