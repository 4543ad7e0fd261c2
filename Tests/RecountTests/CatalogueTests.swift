import Recount
import Testing

/// The metric catalogue and the unit table of contract §2.
@Suite struct CatalogueTests {
    /// Every name of contract §2, with the metric it must resolve to.
    static let typeNames: [(String, Metric)] = [
        ("steps", .steps), ("HKQuantityTypeIdentifierStepCount", .steps), ("Steps", .steps),
        ("StepsRecord", .steps),
        ("distance", .distance), ("HKQuantityTypeIdentifierDistanceWalkingRunning", .distance),
        ("Distance", .distance), ("DistanceRecord", .distance),
        ("active_energy", .activeEnergy),
        ("HKQuantityTypeIdentifierActiveEnergyBurned", .activeEnergy),
        ("ActiveCaloriesBurned", .activeEnergy), ("ActiveCaloriesBurnedRecord", .activeEnergy),
        ("heart_rate", .heartRate), ("HKQuantityTypeIdentifierHeartRate", .heartRate),
        ("HeartRate", .heartRate), ("HeartRateRecord", .heartRate),
        ("weight", .weight), ("HKQuantityTypeIdentifierBodyMass", .weight), ("Weight", .weight),
        ("WeightRecord", .weight),
        ("blood_glucose", .bloodGlucose), ("HKQuantityTypeIdentifierBloodGlucose", .bloodGlucose),
        ("BloodGlucose", .bloodGlucose), ("BloodGlucoseRecord", .bloodGlucose),
        ("sleep", .sleep), ("HKCategoryTypeIdentifierSleepAnalysis", .sleep),
        ("SleepSession", .sleep),
        ("SleepSessionRecord", .sleep),
        ("workout", .workout), ("HKWorkoutTypeIdentifier", .workout), ("ExerciseSession", .workout),
        ("ExerciseSessionRecord", .workout),
    ]

    @Test(arguments: typeNames)
    func resolvesEveryName(name: String, metric: Metric) {
        #expect(Metric.resolve(typeName: name) == metric)
        #expect(metric.typeNames.contains(name))
    }

    @Test(arguments: [
        "", "Steps ", " steps", "STEPS", "step", "stepsRecord", "StepsRecordRecord", "Record",
        "HKQuantityTypeIdentifierStepcount", "HKQuantityTypeIdentifierFlightsClimbed",
        "heart-rate", "heartRate", "activeEnergy", "HKWorkoutType", "SleepSessionRecords",
        "HKCategoryTypeIdentifierSleepAnalysis\u{0}", "stéps", "mmol/L",
    ])
    func rejectsUnknownNames(name: String) {
        #expect(Metric.resolve(typeName: name) == nil)
    }

    @Test func contractNamesRoundTrip() {
        let expected = [
            "steps", "distance", "active_energy", "heart_rate", "weight", "blood_glucose", "sleep",
            "workout",
        ]
        #expect(Metric.allCases.map(\.name) == expected)
        for metric in Metric.allCases {
            #expect(Metric(name: metric.name) == metric)
            #expect(metric.typeNames.first == metric.name)
            #expect(metric.typeNames.count == 4)
        }
        #expect(Metric(name: "Steps") == nil)
        #expect(Metric(name: "HKQuantityTypeIdentifierStepCount") == nil)
        #expect(Metric(name: "") == nil)
    }

    @Test func rawCodesAreStable() {
        #expect(Metric.allCases.map(\.rawValue) == Array(0...7))
        #expect(Metric(rawValue: 5) == .bloodGlucose)
        let codes: [(MeasureUnit, UInt8)] = [
            (.count, 1), (.meter, 2), (.kilometer, 3), (.mile, 4), (.foot, 5), (.kilocalorie, 6),
            (.largeCalorie, 7), (.kilojoule, 8), (.countPerMinute, 9), (.beatsPerMinute, 10),
            (.kilogram, 11), (.gram, 12), (.pound, 13), (.stone, 14), (.mmolPerL, 15),
            (.mgPerdL, 16), (.centimeter, 17), (.millimeter, 18), (.inch, 19), (.yard, 20), (.joule, 21),
            (.ounce, 22), (.countPerSecond, 23),
        ]
        #expect(codes.count == MeasureUnit.allCases.count)
        for (unit, code) in codes { #expect(unit.rawValue == code) }
        #expect(MeasureUnit(rawValue: 0) == nil)
    }

    @Test func acceptedTypeNamesAreTheCatalogueFirstThenSortedAndComplete() {
        let names = Metric.acceptedTypeNames
        #expect(Array(names.prefix(8)) == Metric.allCases.map(\.name))
        #expect(Array(names.dropFirst(8)) == names.dropFirst(8).sorted())
        #expect(names.count == 32)
        #expect(Set(names) == Set(CatalogueTests.typeNames.map(\.0)))
    }

    @Test func metricProperties() {
        #expect(
            Metric.allCases.map(\.canonicalUnit) == [
                "count", "m", "kcal", "count/min", "kg", "mmol/L", "s", "s",
            ])
        #expect(Metric.allCases.filter(\.isCumulative) == [.steps, .distance, .activeEnergy])
        #expect(Metric.allCases.filter { $0.kind == .quantity }.count == 6)
        #expect(Metric.sleep.kind == .sleep)
        #expect(Metric.workout.kind == .workout)
        #expect(
            Metric.allCases.filter { $0.dayRule == .splitByTime } == [
                .steps, .distance, .activeEnergy,
            ])
        #expect(
            Metric.allCases.filter { $0.dayRule == .startDay } == [
                .heartRate, .weight, .bloodGlucose, .workout,
            ])
        #expect(Metric.sleep.dayRule == .sleepEndPlusSixHours)
        for metric in Metric.allCases {
            #expect(
                metric.canonicalMeasureUnit?.symbol
                    == (metric.kind == .quantity ? metric.canonicalUnit : nil))
        }
    }

    @Test func unitsAcceptedPerMetric() {
        let expected: [Metric: [String]] = [
            .steps: ["count"], .distance: ["m", "km", "mi", "ft", "cm", "mm", "in", "yd"],
            .activeEnergy: ["kcal", "Cal", "kJ", "J"],
            .heartRate: ["count/min", "bpm", "count/s"], .weight: ["kg", "g", "lb", "st", "oz"],
            .bloodGlucose: ["mmol/L", "mg/dL"], .sleep: [], .workout: [],
        ]
        for metric in Metric.allCases {
            #expect(
                MeasureUnit.accepted(for: metric).map(\.symbol) == expected[metric], "\(metric)")
            for unit in MeasureUnit.allCases {
                #expect(
                    unit.isAccepted(for: metric) == MeasureUnit.accepted(for: metric).contains(unit)
                )
            }
        }
        // Every unit belongs to exactly one metric of v1.
        for unit in MeasureUnit.allCases {
            #expect(Metric.allCases.filter { unit.isAccepted(for: $0) }.count == 1, "\(unit)")
        }
    }

    @Test func symbolsRoundTrip() {
        for unit in MeasureUnit.allCases {
            #expect(MeasureUnit(symbol: unit.symbol) == unit)
            #expect(MeasureUnit.parse(unit.symbol) == unit)
        }
    }

    @Test(arguments: [
        "mmol<180.1558800000541>/L", "mmol<180>/L", "mmol<0.5>/L",
    ])
    func parsesMolarMassGlucose(symbol: String) {
        #expect(MeasureUnit.parse(symbol) == .mmolPerL)
        #expect(MeasureUnit(symbol: symbol) == .mmolPerL)
    }

    @Test(arguments: [
        "", "M", "KG", "kcal ", "cal", "kj", "mmol/l", "mg/dl", "count/sec", "beats/min", "Yd", "j", "mmol<>/L",
        "mmol<.>/L", "mmol<1.2.3>/L", "mmol<-180>/L", "mmol<180>/l", "mmol<180/L", "mmol180>/L",
        "mmol<180>/L ", "mmol<1e3>/L", "lbs", "stone", "\u{0}", "mmol<\u{0}>/L",
        // The schema's number is `[0-9]+(\.[0-9]+)?`: digits on both sides of a dot.
        "mmol<.5>/L", "mmol<180.>/L",
    ])
    func rejectsUnknownUnits(symbol: String) {
        #expect(MeasureUnit.parse(symbol) == nil)
        #expect(MeasureUnit(symbol: symbol) == nil)
    }

    /// Each conversion against the double nearest to (input double × exact decimal factor),
    /// computed outside Swift with exact rational arithmetic.
    static let conversions: [(String, Double, Double)] = [
        ("count", 1234, 1234),
        ("m", 42.5, 42.5),
        ("km", 1.5, 1500.0),
        ("km", 0.001, 1.0),
        ("mi", 1.0, 1609.344),
        ("mi", 2.0, 3218.688),
        ("mi", 26.2, 42164.8128),
        ("mi", 0.1, 160.9344),
        ("ft", 1.0, 0.3048),
        ("ft", 5280.0, 1609.344),
        ("ft", 6.5, 1.9812),
        ("kcal", 250.5, 250.5),
        ("Cal", 250.5, 250.5),
        ("kJ", 4.184, 1.0),
        ("kJ", 418.4, 100.0),
        ("kJ", 1000.0, 239.0057361376673),
        ("kJ", 1.0, 0.2390057361376673),
        ("count/min", 72, 72),
        ("bpm", 72, 72),
        ("kg", 70.3, 70.3),
        ("g", 1500.0, 1.5),
        ("g", 70300.0, 70.3),
        ("g", 0.1, 0.0001),
        ("lb", 1.0, 0.45359237),
        ("lb", 100.0, 45.359237),
        ("lb", 154.3, 69.989302691),
        ("st", 1.0, 6.35029318),
        ("st", 10.0, 63.5029318),
        ("st", 11.5, 73.02837157),
        ("mmol/L", 5.4, 5.4),
        ("mg/dL", 18.0156, 1.0),
        ("mg/dL", 90.078, 5.0),
        ("mg/dL", 100.0, 5.550744909966918),
        ("mg/dL", 1.0, 0.055507449099669176),
        ("mmol<180.1558800000541>/L", 5.4, 5.4),
        ("cm", 100.0, 1.0),
        ("cm", 0.1, 0.001),
        ("cm", 30.48, 0.3048),
        ("mm", 1500.0, 1.5),
        ("mm", 0.3, 0.0003),
        ("in", 1.0, 0.0254),
        ("in", 12.0, 0.3048),
        ("in", 63360.0, 1609.344),
        ("in", 0.1, 0.00254),
        ("yd", 1.0, 0.9144),
        ("yd", 1760.0, 1609.344),
        ("yd", 100.0, 91.44),
        ("yd", 0.1, 0.09144000000000001),
        ("J", 4184.0, 1.0),
        ("J", 1000.0, 0.2390057361376673),
        ("J", 1.0, 0.0002390057361376673),
        ("oz", 1.0, 0.028349523125),
        ("oz", 16.0, 0.45359237),
        ("oz", 0.1, 0.0028349523125000002),
        ("oz", 3.3, 0.0935534263125),
        ("count/s", 1.2, 72.0),
        ("count/s", 0.1, 6.0),
    ]

    @Test(arguments: conversions)
    func convertsToCanonical(symbol: String, value: Double, expected: Double) throws {
        let unit = try #require(MeasureUnit.parse(symbol))
        #expect(unit.toCanonical(value) == expected)
    }

    @Test func conversionEdges() {
        #expect(MeasureUnit.stone.toCanonical(1) == MeasureUnit.pound.toCanonical(14))
        #expect(MeasureUnit.mile.toCanonical(1) == MeasureUnit.foot.toCanonical(5280))
        #expect(MeasureUnit.mile.toCanonical(1) == MeasureUnit.yard.toCanonical(1760))
        #expect(MeasureUnit.foot.toCanonical(1) == MeasureUnit.inch.toCanonical(12))
        #expect(MeasureUnit.pound.toCanonical(1) == MeasureUnit.ounce.toCanonical(16))
        #expect(MeasureUnit.kilojoule.toCanonical(1) == MeasureUnit.joule.toCanonical(1000))
        for unit in MeasureUnit.allCases {
            #expect(unit.toCanonical(0) == 0)
            #expect(unit.toCanonical(-2) == -unit.toCanonical(2))
            #expect(unit.toCanonical(1e308).isNaN == false, "\(unit)")
        }
        #expect(MeasureUnit.mile.toCanonical(.greatestFiniteMagnitude) == .infinity)
    }

    @Test func bytesOverloadsMatchStrings() {
        for (name, metric) in CatalogueTests.typeNames {
            var copy = name
            let resolved = copy.withUTF8 {
                Metric.resolve(typeNameBytes: UnsafeRawBufferPointer($0))
            }
            #expect(resolved == metric)
        }
        var symbol = "mmol<180.1558800000541>/L"
        #expect(
            symbol.withUTF8 { MeasureUnit.parse(bytes: UnsafeRawBufferPointer($0)) } == .mmolPerL)
    }
}
