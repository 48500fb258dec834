import Foundation

// The transport section of Ratios on its own, so a release build compiles neither GRDB nor
// postgres-nio (Measure.swift and TransportRatios.swift are links to Ratios' own); decoding is
// `PullRatios decoding`:
//   swift run -c release TransportRatios

try await transportRatios()
