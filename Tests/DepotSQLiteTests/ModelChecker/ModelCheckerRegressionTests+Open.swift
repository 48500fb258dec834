import Depot
import SoakSupport
import Testing

// Cases of open issues (`scripts/check-known`): each is a known issue, and fails the day its bug
// is fixed, so the fix removes the `withKnownIssue` and the kind's line in the script. None open.
extension ModelCheckerRegressionTests {}
