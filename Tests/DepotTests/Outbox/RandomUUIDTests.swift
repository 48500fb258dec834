@testable import Depot
import Foundation
import Testing

@Suite struct RandomUUIDTests {
    @Test("randomV4 makes version-4, variant-10 UUIDs, all different, every random bit taking both values")
    func versionVariantAndBits() {
        let uuids = (0..<4_096).map { _ in UUID.randomV4() }
        #expect(Set(uuids).count == uuids.count)
        var ones = [Int](repeating: 0, count: 128)
        for uuid in uuids {
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4, "version nibble of \(uuid)")
            #expect(bytes[8] >> 6 == 0b10, "variant bits of \(uuid)")
            for bit in 0..<128 where bytes[bit / 8] & (0x80 >> (bit % 8)) != 0 { ones[bit] += 1 }
            // The text form parses back to the same UUID (keys and ids travel as text).
            #expect(UUID(uuidString: uuid.uuidString) == uuid)
        }
        let fixed = Set(48..<52).union(64..<66)  // the version nibble and the variant bits
        for bit in 0..<128 where !fixed.contains(bit) {
            // 4,096 fair draws: a bit set fewer than 1,700 or more than 2,400 times is not random.
            #expect((1_700...2_400).contains(ones[bit]), "bit \(bit) was set \(ones[bit]) times of 4,096")
        }
    }
}
