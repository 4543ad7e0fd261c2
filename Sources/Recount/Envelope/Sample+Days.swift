extension Sample {
    /// The civil days this sample counts towards, with the share of it each gets (contract §2
    /// "day of a sample", §3.3): from its own offsets, or its `timeZone` when present.
    package func days(zones: ZoneOffsets) -> [DayShare] {
        let end = effectiveEnd
        return DayAttribution.days(
            rule: type.metric.dayRule, startMillis: start.millis, startOffset: start.offsetSeconds,
            endMillis: end.millis, endOffset: end.offsetSeconds, zone: timeZone, zones: zones)
    }
}
