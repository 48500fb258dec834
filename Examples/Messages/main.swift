import Depot

// Placeholder until the REST example lands: chains a few promises and awaits the result.
let greeting = Promise<String> { resolver in resolver.fulfill("hello") }
    .map { $0 + ", Depot" }
    .then { text in after(seconds: 0.01).promise.map { text.uppercased() } }
print(try await greeting.value)
