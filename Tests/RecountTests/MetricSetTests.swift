import TestSupport
import Testing

@testable import Recount

/// `MetricSet`, the metrics of an envelope as bits: each once, in code order, whatever order
/// they were inserted in (a `Set`'s order differs in every process).
@Suite struct MetricSetTests {
    @Test func goesThroughEachMetricOnceInCodeOrder() {
        var random = SplitMix64(seed: testSeed(41))
        for _ in 0..<50 {
            var set = MetricSet()
            var inserted: [Metric] = []
            for _ in 0..<Int(random.next() % 12) {
                let metric = Metric.allCases[Int(random.next() % UInt64(Metric.allCases.count))]
                set.insert(metric)
                inserted.append(metric)
            }
            #expect(Array(set) == Metric.allCases.filter(inserted.contains))
            #expect(Metric.allCases.filter(set.contains) == Metric.allCases.filter(inserted.contains))
        }
        #expect(Array(MetricSet()).isEmpty)
    }
}
