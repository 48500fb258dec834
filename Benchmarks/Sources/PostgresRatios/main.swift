import Foundation

// PostgresStorage against raw postgres-nio, as ratios in the same run, on the database
// DEPOT_POSTGRES_URL names (`scripts/postgres start` prints one). An executable of its own, so a
// release build of Ratios never compiles postgres-nio and BoringSSL.
//   DEPOT_POSTGRES_URL=… swift run -c release PostgresRatios

print("PostgresRatios — \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
try await postgresRatios()
