#!/bin/sh
# The promise section of Ratios, built against DepotPromise alone (a release build in about a
# minute, where `swift run -c release Ratios promise` compiles every dependency of the package).
# Same source (Sources/Ratios/PromiseRatios.swift and Measure.swift), run RUNS times (default 3).
#   Benchmarks/promise-ratios.sh [RUNS]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-3}
work=${TMPDIR:-/tmp}/depot-promise-ratios
mkdir -p "$work/Sources/PromiseRatios"
ln -sfn "$root/Sources/DepotPromise" "$work/Sources/DepotPromise"
sed 's/^import Depot$/import DepotPromise/' "$root/Benchmarks/Sources/Ratios/PromiseRatios.swift" \
    > "$work/Sources/PromiseRatios/PromiseRatios.swift"
cp "$root/Benchmarks/Sources/Ratios/Measure.swift" "$work/Sources/PromiseRatios/Measure.swift"
printf '%s\n' 'import Foundation' \
    'print("Ratios, promise section: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")' \
    'await promiseRatios()' > "$work/Sources/PromiseRatios/main.swift"
cat > "$work/Package.swift" <<'PACKAGE'
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "DepotPromiseRatios",
    targets: [
        .target(name: "DepotPromise"),
        .executableTarget(name: "PromiseRatios", dependencies: ["DepotPromise"]),
    ],
    swiftLanguageModes: [.v6]
)
PACKAGE
swift build -c release --package-path "$work" --product PromiseRatios
run=1
while [ "$run" -le "$runs" ]; do
    echo "--- run $run of $runs"
    "$work/.build/release/PromiseRatios"
    run=$((run + 1))
done
