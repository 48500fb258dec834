import Foundation

/// Creates the empty file at `path`: the parent's signals to its replicas (`gate`, `finished`).
///
/// - Throws: ``HarnessError`` when the file cannot be created.
func touch(_ path: String) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil) else {
        throw HarnessError(description: "cannot create \(path)")
    }
}
