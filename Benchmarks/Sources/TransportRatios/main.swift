import Foundation

// The transport section of Ratios on its own, so a release build compiles neither GRDB nor
// postgres-nio (Measure.swift and TransportRatios.swift are links to Ratios' own):
//   swift run -c release TransportRatios [transport|decoding]

let only = CommandLine.arguments.dropFirst().first
if only == nil || only == "transport" { try await transportRatios() }
if only == "decoding" { try await decodingRatios() }
