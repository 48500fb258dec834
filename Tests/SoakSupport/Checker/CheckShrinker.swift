import Foundation

/// Reduces a failing program to a short one that still fails the same way (a violation of the
/// same kind), as Hypothesis and QuickCheck do: drop chunks of steps (halves, then quarters, down
/// to single steps), then drop each fault, then drop each part of what runs during a step, then plain each step (remote-first, account A), then
/// turn off each feature of the server's shape, until no change keeps it failing or the budget
/// of runs is spent.
public struct CheckShrinker: Sendable {
    /// The most programs run while shrinking.
    public var budget: Int
    /// Runs a program and returns its violations.
    public var run: @Sendable (CheckProgram) async -> [CheckViolation]
    /// When to stop shrinking whatever is left of the budget (nil: none).
    public var deadline: ContinuousClock.Instant?

    /// A shrinker that runs programs with `run`, at most `budget` of them, until `deadline`.
    public init(
        budget: Int = 150, deadline: ContinuousClock.Instant? = nil,
        run: @escaping @Sendable (CheckProgram) async -> [CheckViolation]
    ) {
        self.budget = budget
        self.deadline = deadline
        self.run = run
    }

    /// The shortest program found that still breaks the model with a violation of `kind`, and its
    /// violations.
    public func shrink(_ program: CheckProgram, kind: String) async -> (CheckProgram, [CheckViolation], runs: Int) {
        var best = program
        // An entity is named by its create: dropping the create makes its later steps skip, so
        // chunks shrink programs whole entities at a time as well.
        var bestViolations: [CheckViolation] = []
        var runs = 0
        func fails(_ candidate: CheckProgram) async -> Bool {
            guard runs < budget, deadline.map({ ContinuousClock.now < $0 }) ?? true else { return false }
            runs += 1
            let violations = await run(candidate)
            guard violations.contains(where: { $0.kind == kind }) else { return false }
            best = candidate
            bestViolations = violations
            return true
        }
        var chunk = max(best.steps.count / 2, 1)
        while chunk >= 1, runs < budget {
            var start = 0
            while start < best.steps.count, runs < budget {
                var candidate = best
                candidate.steps.removeSubrange(start..<min(start + chunk, best.steps.count))
                if await !fails(candidate) { start += chunk }
            }
            chunk /= 2
        }
        for index in best.steps.indices.reversed() where runs < budget {
            var candidate = best
            guard candidate.steps[index].fault != nil else { continue }
            candidate.steps[index].fault = nil
            _ = await fails(candidate)
        }
        for index in best.steps.indices.reversed() where runs < budget {
            var candidate = best
            guard candidate.steps[index].during != nil else { continue }
            candidate.steps[index].during = nil
            _ = await fails(candidate)
        }
        // Then each part of what runs during a step, dropped.
        for index in best.steps.indices where runs < budget {
            var part = 0
            while let during = best.steps[index].during, during.parts.count > 1, part < during.parts.count,
                runs < budget
            {
                var parts = during.parts
                parts.remove(at: part)
                var candidate = best
                candidate.steps[index].during = parts.dropLast().reversed().reduce(parts[parts.count - 1]) {
                    .both($1, $0)
                }
                if await !fails(candidate) { part += 1 }
            }
        }
        for index in best.steps.indices where runs < budget && best.steps[index].callsRepository {
            var candidate = best
            candidate.steps[index].strategy = .remoteFirst
            candidate.steps[index].account = "A"
            if candidate != best { _ = await fails(candidate) }
        }
        let plainer: [(inout CheckServerShape) -> Void] = [
            { $0.variesByCaller = false }, { $0.summarizesLists = false }, { $0.cacheControl = nil },
            { $0.batchRoute = false }, { $0.conflictsInFlight = false }, { $0.servesETags = false },
            { $0.assignsIDs = false }, { $0.sqlite = true }, { $0.refreshesTokens = false },
            { $0.lowercaseIDs = false }, { $0.incremental = false }, { $0.replica = false },
            { $0.cookies = false }, { $0.wholeSecondTimeout = false }, { $0.clientWins = false },
            { $0.tinyCache = false }, { $0.hugeAge = false }, { $0.migratesQueued = false },
            { $0.localSpelledIDs = false },
            { $0.answersWritesEmpty = false }, { $0.linkPaging = false }, { $0.silentPages = false },
            { $0.omitsNulls = false },
            { $0.longRetryAfter = nil }, { $0.redirectsElsewhere = false }, { $0.chainedRefresh = false },
            { $0.declaresAccounts = false }, { $0.childCollection = false },
        ]
        for plain in plainer where runs < budget {
            var candidate = best
            plain(&candidate.shape)
            if candidate != best { _ = await fails(candidate) }
        }
        if bestViolations.isEmpty { bestViolations = await run(best) }
        return (best, bestViolations, runs)
    }
}
