#!/usr/bin/env python3
"""Generate the Recount ingest JSON Schemas (draft 2020-12) from one place.

    python3 schemas/generate.py          # rewrites schemas/*.schema.json
    python3 schemas/generate.py --check  # exits 1 if a committed file is stale

The metric catalogue, the type-name aliases and the unit tables of contract §2 live
here (METRICS) and nowhere else in the schema files; edit them here and regenerate.
The generated JSON is committed so that consumers do not need Python.
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASE = "https://recount.dev/schemas/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"

# --------------------------------------------------------------------------------------
# Catalogue (contract §2). kind: quantity | sleep | workout.
# units: exact, case-sensitive unit strings (HealthKit's `HKUnit` unit strings, plus `bpm`);
# unit_patterns: extra accepted forms. New units get new codes in the record format
# (docs/record-format.md) and in MeasureUnit.swift, appended, never renumbered.
# minimum: "zero" (cumulative metrics: value >= 0) or "positive" (value > 0).
# --------------------------------------------------------------------------------------
METRICS = [
    dict(metric="steps", hk="HKQuantityTypeIdentifierStepCount", hc="Steps",
         kind="quantity", canonical="count", units=["count"], minimum="zero"),
    dict(metric="distance", hk="HKQuantityTypeIdentifierDistanceWalkingRunning", hc="Distance",
         kind="quantity", canonical="m", units=["m", "km", "mi", "ft", "cm", "mm", "in", "yd"],
         minimum="zero"),
    dict(metric="active_energy", hk="HKQuantityTypeIdentifierActiveEnergyBurned",
         hc="ActiveCaloriesBurned", kind="quantity", canonical="kcal", units=["kcal", "Cal", "kJ", "J"],
         minimum="zero"),
    dict(metric="heart_rate", hk="HKQuantityTypeIdentifierHeartRate", hc="HeartRate",
         kind="quantity", canonical="count/min", units=["count/min", "bpm", "count/s"],
         minimum="positive"),
    dict(metric="weight", hk="HKQuantityTypeIdentifierBodyMass", hc="Weight",
         kind="quantity", canonical="kg", units=["kg", "g", "lb", "st", "oz"],
         minimum="positive"),
    dict(metric="blood_glucose", hk="HKQuantityTypeIdentifierBloodGlucose", hc="BloodGlucose",
         kind="quantity", canonical="mmol/L", units=["mmol/L", "mg/dL"], minimum="positive",
         unit_patterns=[r"^mmol<[0-9]+(\.[0-9]+)?>/L$"]),
    dict(metric="sleep", hk="HKCategoryTypeIdentifierSleepAnalysis", hc="SleepSession",
         kind="sleep", canonical="s"),
    dict(metric="workout", hk="HKWorkoutTypeIdentifier", hc="ExerciseSession",
         kind="workout", canonical="s"),
]


def names_of(m):
    """Every accepted spelling of one metric: catalogue, HealthKit, Health Connect (+Record)."""
    return [m["metric"], m["hk"], m["hc"], m["hc"] + "Record"]


ALL_TYPE_NAMES = [n for m in METRICS for n in names_of(m)]
STAGES = ["inBed", "asleep", "awake", "core", "deep", "rem"]

# --------------------------------------------------------------------------------------
# Workout activities (contract §1 `activity`): the normalised names, in code order
# (Sources/Recount/Catalogue/WorkoutActivity.swift holds the codes and the mapping of every
# provider name; schemas/README.md documents it). Ingest also accepts every
# HKWorkoutActivityType… and Health Connect EXERCISE_TYPE_… name below; a test checks that
# the Swift catalogue accepts exactly these names.
# --------------------------------------------------------------------------------------
ACTIVITIES = ["other", "walking", "running", "cycling", "swimming", "strength_training", "yoga",
              "hiking", "elliptical", "rowing", "hiit"]
HK_ACTIVITY_TYPES = """
    AmericanFootball Archery AustralianFootball Badminton Barre Baseball Basketball Bowling Boxing
    CardioDance Climbing Cooldown CoreTraining Cricket CrossCountrySkiing CrossTraining Curling
    Cycling Dance DanceInspiredTraining DiscSports DownhillSkiing Elliptical EquestrianSports
    Fencing Fishing FitnessGaming Flexibility FunctionalStrengthTraining Golf Gymnastics
    HandCycling Handball HighIntensityIntervalTraining Hiking Hockey Hunting JumpRope Kickboxing
    Lacrosse MartialArts MindAndBody MixedCardio MixedMetabolicCardioTraining Other PaddleSports
    Pickleball Pilates Play PreparationAndRecovery Racquetball Rowing Rugby Running Sailing
    SkatingSports Snowboarding SnowSports Soccer SocialDance Softball Squash StairClimbing Stairs
    StepTraining SurfingSports SwimBikeRun Swimming TableTennis TaiChi Tennis TrackAndField
    TraditionalStrengthTraining Transition UnderwaterDiving Volleyball Walking WaterFitness
    WaterPolo WaterSports WheelchairRunPace WheelchairWalkPace Wrestling Yoga""".split()
HC_EXERCISE_TYPES = """
    OTHER_WORKOUT BADMINTON BASEBALL BASKETBALL BIKING BIKING_STATIONARY BOOT_CAMP BOXING
    CALISTHENICS CRICKET DANCING ELLIPTICAL EXERCISE_CLASS FENCING FOOTBALL_AMERICAN
    FOOTBALL_AUSTRALIAN FRISBEE_DISC GOLF GUIDED_BREATHING GYMNASTICS HANDBALL
    HIGH_INTENSITY_INTERVAL_TRAINING HIKING ICE_HOCKEY ICE_SKATING MARTIAL_ARTS PADDLING
    PARAGLIDING PILATES RACQUETBALL ROCK_CLIMBING ROLLER_HOCKEY ROWING ROWING_MACHINE RUGBY
    RUNNING RUNNING_TREADMILL SAILING SCUBA_DIVING SKATING SKIING SNOWBOARDING SNOWSHOEING SOCCER
    SOFTBALL SQUASH STAIR_CLIMBING STAIR_CLIMBING_MACHINE STRENGTH_TRAINING STRETCHING SURFING
    SWIMMING_OPEN_WATER SWIMMING_POOL TABLE_TENNIS TENNIS VOLLEYBALL WALKING WATER_POLO
    WEIGHTLIFTING WHEELCHAIR YOGA""".split()
ACTIVITY_NAMES = sorted(ACTIVITIES + ["HKWorkoutActivityType" + n for n in HK_ACTIVITY_TYPES]
                        + ["EXERCISE_TYPE_" + n for n in HC_EXERCISE_TYPES])

# --------------------------------------------------------------------------------------
# Shared string shapes.
# --------------------------------------------------------------------------------------
# RFC 3339 date-time with a mandatory offset. The lead's shape, with the numeric fields
# range-checked (month 01-12, day 01-31, hour 00-23, minute/second 00-59, offset hour 00-23),
# so that validators that treat `format` as an annotation still reject 24:00:00, :60, +24:00.
# Calendar validity (2023-02-30, year 0000) is left to the `date-time` format check.
DATE_TIME_PATTERN = (
    r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?"
    r"([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
)
USER_PATTERN = r"^[A-Za-z0-9._:@-]{1,128}$"
CONFIG_USER_PATTERN = r"^(\*|[A-Za-z0-9._:@-]{1,128})$"
PROVIDER_PATTERN = r"^[A-Za-z0-9._-]{1,64}$"
ID_PATTERN = "^[^\\u0000-\\u001F\\u007F]{1,256}$"
# Free text without control characters (U+0000 to U+001F, U+007F), as the decoder checks it.
DEVICE_PATTERN = "^[^\\u0000-\\u001F\\u007F]{0,256}$"
TOKEN_PATTERN = "^[^\\u0000-\\u001F\\u007F]{1,4096}$"
TIME_ZONE_PATTERN = r"^[A-Za-z0-9_+\-/]+$"
BASE64_PATTERN = r"^[A-Za-z0-9+/]*={0,2}$"
COHORT_PATTERN = r"^[A-Za-z0-9._:-]+$"
MAX_BATCH = 50000
INT64_MAX = 9223372036854775807


def ref(file, frag=None, **extra):
    d = {"$ref": file + ("#/$defs/" + frag if frag else "")}
    d.update(extra)
    return d


def common(frag, description, **extra):
    return ref("common.schema.json", frag, description=description, **extra)


# --------------------------------------------------------------------------------------
# common.schema.json
# --------------------------------------------------------------------------------------
def common_schema():
    type_desc = (
        "An accepted metric type name: a catalogue metric, the HealthKit identifier that maps "
        "to it, or the Health Connect record name with or without the `Record` suffix. Names "
        "are case-sensitive. Every spelling of one metric is equivalent: "
        + "; ".join(f"`{m['metric']}` = " + ", ".join(f"`{n}`" for n in names_of(m)[1:])
                    for m in METRICS) + "."
    )
    return {
        "$schema": DRAFT,
        "$id": BASE + "common.schema.json",
        "title": "Recount shared definitions",
        "description": (
            "String shapes shared by every Recount ingest schema. Not an envelope by itself; "
            "the other schemas reference its `$defs`."
        ),
        "$defs": {
            "user": {
                "title": "User id",
                "description": (
                    "The user the envelope belongs to: 1 to 128 characters of "
                    "`A-Z a-z 0-9 . _ : @ -`. The wildcard `*` is only accepted on `config.*` "
                    "envelopes."
                ),
                "type": "string",
                "pattern": USER_PATTERN,
                "examples": ["u1", "alice@example.com", "tenant-7:user.42"],
            },
            "configUser": {
                "title": "User id or `*`",
                "description": (
                    "The user this configuration applies to (1 to 128 characters of "
                    "`A-Z a-z 0-9 . _ : @ -`), or `*` for the default of every user. A user's "
                    "own setting wins over the `*` default."
                ),
                "type": "string",
                "pattern": CONFIG_USER_PATTERN,
                "examples": ["*", "u1"],
            },
            "dateTime": {
                "title": "RFC 3339 instant",
                "description": (
                    "An RFC 3339 date-time with seconds and an explicit offset (`Z` or `±hh:mm`), "
                    "optionally with fractional digits (any number; the instant keeps "
                    "milliseconds and drops further digits): `2026-07-13T23:45:00-07:00`, "
                    "`2026-07-14T06:45:00.250Z`. The offset is kept: it decides the civil date "
                    "of a sample; `-00:00` (offset unknown) counts as UTC and is kept as written. "
                    "Local times without an offset, a space instead of `T`, "
                    "`24:00:00`, leap seconds (`:60`) and calendar-invalid dates "
                    "(`2023-02-30`) are rejected."
                ),
                "type": "string",
                "format": "date-time",
                "pattern": DATE_TIME_PATTERN,
                "examples": ["2026-07-13T23:45:00-07:00", "2026-07-14T06:45:00.250Z",
                             "2026-07-14T12:30:00+05:45"],
            },
            "provider": {
                "title": "Provider name",
                "description": (
                    "The provider that delivered the data (`fitbit`, `garmin`, `oura`, ...): "
                    "1 to 64 characters of `A-Z a-z 0-9 . _ -`. `healthkit` and "
                    "`health_connect` are implied by the `healthkit.delivery` and "
                    "`healthconnect.changes` kinds."
                ),
                "type": "string",
                "pattern": PROVIDER_PATTERN,
                "examples": ["fitbit", "garmin", "oura"],
            },
            "id": {
                "title": "Record id",
                "description": (
                    "A provider's record identity (HealthKit UUID, Health Connect "
                    "`metadata.id`, provider record id): 1 to 256 characters (Unicode code "
                    "points), none of them a control character (U+0000 to U+001F, U+007F). "
                    "Compared byte for byte; never normalised or case-folded."
                ),
                "type": "string",
                "pattern": ID_PATTERN,
                "examples": ["9F1C2A4E-5B6D-4C3E-8F7A-1B2C3D4E5F60",
                             "c0ffee00-hc-0001", "fitbit:12345678"],
            },
            "origin": {
                "title": "Origin",
                "description": (
                    "Bundle id or package name of the app that wrote the sample "
                    "(`com.apple.health`, `com.google.android.apps.fitness`): 1 to 256 "
                    "characters, no control characters."
                ),
                "type": "string",
                "pattern": ID_PATTERN,
                "examples": ["com.apple.health.8F1B2C3D", "com.google.android.apps.fitness"],
            },
            "typeName": {
                "title": "Metric type name",
                "description": type_desc,
                "enum": ALL_TYPE_NAMES,
                "examples": ["steps", "HKQuantityTypeIdentifierStepCount", "Steps", "StepsRecord"],
            },
            "base64": {
                "title": "Base64 blob",
                "description": (
                    "Standard base64 (alphabet `A-Z a-z 0-9 + /`, `=` padding, no line breaks), "
                    "at most 65536 characters. The engine stores the decoded bytes opaquely; a "
                    "string that does not decode (for example an unpadded length that is not a "
                    "multiple of 4) is rejected by the decoder."
                ),
                "type": "string",
                "pattern": BASE64_PATTERN,
                "maxLength": 65536,
                "examples": ["YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb24=", "AAAAAAAAAA8="],
            },
        },
    }


# --------------------------------------------------------------------------------------
# sample.schema.json
# --------------------------------------------------------------------------------------
def unit_schema(m):
    units = m["units"]
    desc = (f"`{m['metric']}` accepts " + ", ".join(f"`{u}`" for u in units))
    if m.get("unit_patterns"):
        desc += " and Apple's molar-mass form `mmol<180.1558800000541>/L`"
        return {"description": desc + ".",
                "anyOf": [{"enum": units}] + [{"pattern": p, "maxLength": 256} for p in m["unit_patterns"]]}
    return {"description": desc + ".", "enum": units}


def workout_total(metric, label):
    """A workout total: a bare number in the canonical unit, or {value, unit} in a unit of `metric`."""
    m = next(m for m in METRICS if m["metric"] == metric)
    return {
        "description": (
            f"Workouts only: the workout's {label} total, never negative. A bare number is in "
            f"`{m['canonical']}`; `{{\"value\", \"unit\"}}` takes any unit of `{metric}` ("
            + ", ".join(f"`{u}`" for u in m["units"]) + ") and is converted like `value`, the "
            f"original kept. It describes the workout and is not added to the `{metric}` rollup."
        ),
        # One schema for both forms (`minimum` applies to numbers only, the object keywords
        # to objects only), so errors point into the object rather than at a failed `oneOf`.
        "type": ["number", "object"],
        "minimum": 0,
        "additionalProperties": False,
        "required": ["value", "unit"],
        "properties": {
            "value": {"description": f"The {label} in `unit`, never negative.",
                      "type": "number", "minimum": 0},
            "unit": {"description": f"A unit of `{metric}`.", "enum": m["units"]},
        },
        "examples": [{"value": 5.2, "unit": m["units"][1]}, 0],
    }


def sample_schema():
    rules = []
    workout_only = {"activity": False, "distance": False, "energy": False}
    quantity = [m for m in METRICS if m["kind"] == "quantity"]
    rules.append({
        "description": "Quantity types carry `value` and `unit`, never `stage`.",
        "if": {"properties": {"type": {"enum": [n for m in quantity for n in names_of(m)]}},
               "required": ["type"]},
        "then": {"required": ["value", "unit"], "properties": {"stage": False, **workout_only}},
    })
    for m in quantity:
        if m["minimum"] == "zero":
            value = {"description": f"`{m['metric']}` is never negative.", "minimum": 0}
            bound = "never negative"
        else:
            value = {"description": f"`{m['metric']}` is greater than 0.", "exclusiveMinimum": 0}
            bound = "greater than 0"
        rules.append({
            "description": (f"Units of `{m['metric']}` (canonical `{m['canonical']}`); "
                            f"its value is {bound}."),
            "if": {"properties": {"type": {"enum": names_of(m)}}, "required": ["type"]},
            "then": {"properties": {"unit": unit_schema(m), "value": value}},
        })
    sleep = [m for m in METRICS if m["kind"] == "sleep"]
    rules.append({
        "description": "Sleep types carry `stage`, never `value` or `unit`.",
        "if": {"properties": {"type": {"enum": [n for m in sleep for n in names_of(m)]}},
               "required": ["type"]},
        "then": {"required": ["stage"], "properties": {"value": False, "unit": False, **workout_only}},
    })
    workout = [m for m in METRICS if m["kind"] == "workout"]
    rules.append({
        "description": "Workout types carry none of `value`, `unit`, `stage`.",
        "if": {"properties": {"type": {"enum": [n for m in workout for n in names_of(m)]}},
               "required": ["type"]},
        "then": {"properties": {"value": False, "unit": False, "stage": False}},
    })
    unit_table = "; ".join(
        f"`{m['metric']}`: " + ", ".join(f"`{u}`" for u in m["units"])
        + (", `mmol<…>/L`" if m.get("unit_patterns") else "")
        for m in quantity)
    return {
        "$schema": DRAFT,
        "$id": BASE + "sample.schema.json",
        "title": "Recount sample",
        "description": (
            "One health sample as delivered by a provider. Quantity types (steps, distance, "
            "active_energy, heart_rate, weight, blood_glucose and their aliases) require "
            "`value` and `unit` and forbid `stage`; sleep types require `stage` and forbid "
            "`value`/`unit`; workout types forbid all three and may carry `activity`, "
            "`distance` and `energy` (only they may). Unknown fields are rejected. "
            "Rules the decoder enforces beyond this schema: `end` must not be before `start`; "
            "a sample may span at most 366 days; `timeZone` must be a known IANA zone; `value` "
            "must be finite (a literal such as `1e400` overflows and is rejected); inside an "
            "envelope, the sample's metric must match the envelope's metric and ids must be "
            "unique."
        ),
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "type", "start", "origin"],
        "properties": {
            "id": common("id", "The provider's identity of this sample: HealthKit UUID, Health "
                               "Connect `metadata.id`, provider record id. Together with the "
                               "user and the provider it keys the sample: re-delivering the "
                               "same id replaces (or is a no-op)."),
            "type": common("typeName", "The metric of the sample, as a catalogue name or a "
                                       "HealthKit / Health Connect type name that maps to one."),
            "start": common("dateTime", "When the sample starts, with the offset of the zone "
                                        "where it was recorded (`2026-07-13T23:45:00-07:00`)."),
            "end": common("dateTime", "When the sample ends, same form as `start`. Absent = "
                                      "instantaneous (`end = start`). Must not be before "
                                      "`start`; at most 366 days after it."),
            "timeZone": {
                "description": (
                    "IANA time zone name (HealthKit `HKMetadataKeyTimeZone`), e.g. "
                    "`America/Los_Angeles`. When present it decides the civil date instead of "
                    "the offset of `start`. 1 to 64 characters of `A-Z a-z 0-9 _ + - /`; the "
                    "decoder rejects names that are not in the IANA database."
                ),
                "type": "string",
                "minLength": 1,
                "maxLength": 64,
                "pattern": TIME_ZONE_PATTERN,
                "examples": ["America/Los_Angeles", "Europe/Berlin", "UTC"],
            },
            "value": {
                "description": (
                    "The quantity, in `unit`. Required for quantity types, forbidden otherwise. "
                    "Any finite JSON number, never negative for the cumulative metrics (steps, "
                    "distance, active_energy) and greater than 0 for heart_rate, weight and "
                    "blood_glucose; it is converted to the metric's canonical unit at "
                    "ingest and the original is kept."
                ),
                "type": "number",
                "examples": [1234, 72.5, 5.6],
            },
            "unit": {
                "description": (
                    "Unit of `value`, case-sensitive. Required for quantity types, forbidden "
                    "otherwise. Accepted per metric: " + unit_table + "."
                ),
                "type": "string",
                "examples": ["count", "km", "kcal", "count/min", "kg", "mg/dL",
                             "mmol<180.1558800000541>/L"],
            },
            "stage": {
                "description": (
                    "Sleep stage. Required for sleep types, forbidden otherwise. `inBed` "
                    "(HealthKit in bed), `asleep` (unspecified asleep), `awake`, `core` "
                    "(light), `deep`, `rem`."
                ),
                "enum": STAGES,
                "examples": ["asleep", "deep"],
            },
            "origin": common("origin", "Bundle id / package name of the app that wrote the "
                                       "sample. Used for overlap priority "
                                       "(`config.sources`) and own-write filtering "
                                       "(`config.ownOrigins`)."),
            "device": {
                "description": "Device name or model (`Apple Watch`, `iPhone`, `Pixel Watch 2`); "
                               "0 to 256 characters, no control characters. Used by the "
                               "default overlap priority (a watch wins over a phone).",
                "type": "string",
                "pattern": DEVICE_PATTERN,
                "examples": ["Apple Watch", "iPhone", "Pixel Watch 2"],
            },
            "syncIdentifier": {
                "description": "HealthKit `HKMetadataKeySyncIdentifier`: a writer-defined "
                               "identity. 1 to 256 characters, no control characters.",
                "type": "string",
                "pattern": ID_PATTERN,
                "examples": ["fitbit-day-2026-07-13"],
            },
            "syncVersion": {
                "description": "HealthKit `HKMetadataKeySyncVersion`: among samples with the "
                               "same `syncIdentifier`, a higher version replaces; an equal or "
                               "lower one is ignored. Integer 0 to 2^63-1.",
                "type": "integer",
                "minimum": 0,
                "maximum": INT64_MAX,
                "examples": [1, 7],
            },
            "lastModified": common("dateTime", "Health Connect `metadata.lastModifiedTime`. "
                                               "When both the stored and the incoming sample "
                                               "carry one, it decides which is newer."),
            "activity": {
                "description": (
                    "Workouts only: what kind of workout. A normalised name (" +
                    ", ".join(f"`{a}`" for a in ACTIVITIES) + "), or an "
                    "`HKWorkoutActivityType…` or Health Connect `EXERCISE_TYPE_…` name, which "
                    "maps to one (schemas/README.md lists the mapping; unmapped ones are "
                    "`other`). Kept as written. Absent = `other`."
                ),
                "enum": ACTIVITY_NAMES,
                "examples": ["running", "HKWorkoutActivityTypeCycling", "EXERCISE_TYPE_YOGA"],
            },
            "distance": workout_total("distance", "distance"),
            "energy": workout_total("active_energy", "energy"),
        },
        "allOf": rules,
        "examples": [
            {"id": "9F1C2A4E-5B6D-4C3E-8F7A-1B2C3D4E5F60",
             "type": "HKQuantityTypeIdentifierStepCount",
             "start": "2026-07-13T23:45:00-07:00", "end": "2026-07-14T00:15:00-07:00",
             "timeZone": "America/Los_Angeles", "value": 1234, "unit": "count",
             "origin": "com.apple.health.8F1B2C3D", "device": "Apple Watch",
             "syncIdentifier": "w-2026-07-13-2345", "syncVersion": 1},
            {"id": "c0ffee00-hc-0001", "type": "SleepSessionRecord",
             "start": "2026-07-13T23:10:00+02:00", "end": "2026-07-14T01:40:00+02:00",
             "stage": "deep", "origin": "com.google.android.apps.fitness",
             "lastModified": "2026-07-14T07:02:11.123Z"},
            {"id": "g-77", "type": "blood_glucose", "start": "2026-07-14T08:00:00Z",
             "value": 5.6, "unit": "mmol<180.1558800000541>/L", "origin": "com.dexcom.G7"},
            {"id": "w-1", "type": "workout", "start": "2026-07-14T06:00:00+01:00",
             "end": "2026-07-14T06:45:00+01:00", "origin": "com.strava"},
            {"id": "w-2", "type": "workout", "start": "2026-07-14T18:00:00+01:00",
             "end": "2026-07-14T18:40:00+01:00", "origin": "com.strava", "activity": "cycling",
             "distance": {"value": 15.3, "unit": "km"}, "energy": 410},
        ],
    }


# --------------------------------------------------------------------------------------
# Envelopes
# --------------------------------------------------------------------------------------
KINDS = ["healthkit.delivery", "healthconnect.changes", "samples.upsert", "samples.delete",
         "checkin", "reconcile", "config.sources", "config.provider", "config.ownOrigins"]


def envelope(kind, title, description, props, required, examples):
    config = kind.startswith("config.")
    base = {
        "kind": {"description": f"Envelope kind; always `{kind}` for this schema.",
                 "const": kind},
        "user": (common("configUser", "The user this setting applies to, or `*` for the "
                                      "default of every user (a user's own setting wins).")
                 if config else
                 common("user", "The user the data belongs to. `*` is not accepted here "
                                "(only `config.*` envelopes take it).")),
        "receivedAt": common("dateTime", "When the backend received the envelope. If absent "
                                         "the engine stamps the current time before "
                                         "appending, so replay never reads the clock."),
    }
    base.update(props)
    return {
        "$schema": DRAFT,
        "$id": BASE + kind + ".schema.json",
        "title": title,
        "description": description,
        "type": "object",
        "additionalProperties": False,
        "required": ["kind", "user"] + required,
        "properties": base,
        "examples": examples,
    }


def batch(description):
    return {"description": description + f" At most {MAX_BATCH} items.",
            "type": "array", "maxItems": MAX_BATCH, "items": ref("sample.schema.json")}


S_STEPS = {"id": "9F1C2A4E-5B6D-4C3E-8F7A-1B2C3D4E5F60", "type": "HKQuantityTypeIdentifierStepCount",
           "start": "2026-07-13T23:45:00-07:00", "end": "2026-07-14T00:15:00-07:00",
           "timeZone": "America/Los_Angeles", "value": 1234, "unit": "count",
           "origin": "com.apple.health.8F1B2C3D", "device": "Apple Watch"}
S_HC_STEPS = {"id": "c0ffee00-hc-0001", "type": "StepsRecord", "start": "2026-07-14T09:00:00+02:00",
              "end": "2026-07-14T09:30:00+02:00", "value": 2100, "unit": "count",
              "origin": "com.google.android.apps.fitness", "device": "Pixel Watch 2",
              "lastModified": "2026-07-14T07:45:12.5Z"}
S_FITBIT = {"id": "fitbit:act:88812", "type": "distance", "start": "2026-07-14T07:00:00-04:00",
            "end": "2026-07-14T07:40:00-04:00", "value": 5.2, "unit": "km", "origin": "com.fitbit"}

EXAMPLES = {
    "healthkit.delivery": [
        {"kind": "healthkit.delivery", "user": "u1", "receivedAt": "2026-07-14T07:15:02Z",
         "type": "HKQuantityTypeIdentifierStepCount", "anchor": None,
         "newAnchor": "YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb24=",
         "added": [S_STEPS], "deleted": [{"uuid": "0D5E3C2B-1A09-4F8E-9D7C-6B5A4F3E2D1C",
                                          "metadata": {"HKWasUserEntered": True}}]},
    ],
    "healthconnect.changes": [
        {"kind": "healthconnect.changes", "user": "u2", "receivedAt": "2026-07-14T07:50:00Z",
         "recordTypes": ["StepsRecord"], "token": "hc-token-41", "nextChangesToken": "hc-token-42",
         "hasMore": False, "changesTokenExpired": False,
         "changes": [{"upsertion": S_HC_STEPS}, {"deletion": {"recordId": "c0ffee00-hc-0000"}}]},
    ],
    "samples.upsert": [
        {"kind": "samples.upsert", "user": "u3", "provider": "fitbit", "samples": [S_FITBIT]},
    ],
    "samples.delete": [
        {"kind": "samples.delete", "user": "u3", "receivedAt": "2026-07-14T12:00:00Z",
         "provider": "fitbit", "ids": ["fitbit:act:88812"]},
    ],
    "checkin": [
        {"kind": "checkin", "user": "u1", "provider": "healthkit",
         "metrics": ["steps", "sleep"], "at": "2026-07-14T07:15:00Z"},
    ],
    "reconcile": [
        {"kind": "reconcile", "user": "u3", "receivedAt": "2026-07-15T00:00:00Z",
         "provider": "fitbit", "metric": "distance",
         "window": {"from": "2026-07-14T00:00:00-04:00", "to": "2026-07-15T00:00:00-04:00"},
         "samples": [S_FITBIT]},
    ],
    "config.sources": [
        {"kind": "config.sources", "user": "*", "metric": "steps",
         "priority": ["com.apple.health.8F1B2C3D", "com.fitbit"]},
    ],
    "config.provider": [
        {"kind": "config.provider", "user": "*", "provider": "healthkit",
         "expectedCheckinSeconds": 86400, "cohort": "ios-background"},
    ],
    "config.ownOrigins": [
        {"kind": "config.ownOrigins", "user": "*", "origins": ["com.example.recount-writer"]},
    ],
}


def envelopes():
    out = {}
    out["healthkit.delivery"] = envelope(
        "healthkit.delivery", "healthkit.delivery envelope",
        "One result of an `HKAnchoredObjectQuery` for one type. Provider `healthkit`. Counts as "
        "a check-in at `receivedAt`. The decoder also rejects: a sample of another metric than "
        "`type`; duplicate ids in `added` or in `deleted`; anchors that are not valid base64.",
        {
            "type": common("typeName", "The queried type (HealthKit identifier or any accepted "
                                       "name). Every sample in `added` must be of this metric."),
            "anchor": {
                "description": "Base64 of the archived `HKQueryAnchor` the query ran with, or "
                               "`null` for a nil anchor (a full-history delivery; the engine "
                               "reports how many of its samples were new).",
                "anyOf": [{"$ref": "common.schema.json#/$defs/base64"}, {"type": "null"}],
                "examples": [None, "YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb24="],
            },
            "newAnchor": common("base64", "Base64 of the anchor returned by the query; stored "
                                          "as the (user, healthkit, metric) cursor."),
            "added": batch("New or changed samples, each of the delivery's metric, with unique "
                           "ids."),
            "deleted": {
                "description": f"Deleted objects (`HKDeletedObject`). At most {MAX_BATCH} items; "
                               "uuids unique within the envelope.",
                "type": "array",
                "maxItems": MAX_BATCH,
                "items": {
                    "description": "One deleted object.",
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["uuid"],
                    "properties": {
                        "uuid": common("id", "The deleted sample's id (HealthKit UUID)."),
                        "metadata": {
                            "description": "The deleted object's metadata, kept as given "
                                           "(any JSON object).",
                            "type": "object",
                            "examples": [{"HKSyncIdentifier": "w-1", "HKSyncVersion": 2}],
                        },
                    },
                },
            },
        },
        ["type", "anchor", "newAnchor", "added", "deleted"],
        EXAMPLES["healthkit.delivery"])
    out["healthconnect.changes"] = envelope(
        "healthconnect.changes", "healthconnect.changes envelope",
        "One page of Health Connect `getChanges`. Provider `health_connect`. A page with "
        "`hasMore: false` and `changesTokenExpired: false` counts as a check-in at `receivedAt`; "
        "`changesTokenExpired: true` puts the cursor into `needs_recovery`. The decoder also "
        "rejects: an upserted sample whose metric is not among `recordTypes`; a record id that "
        "appears twice in one page.",
        {
            "recordTypes": {
                "description": "The record types the changes token was created for (at least "
                               "one). Any accepted type name; compared by metric.",
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_BATCH,
                "items": ref("common.schema.json", "typeName"),
            },
            "token": {"description": "The changes token this page was read with (1 to 4096 "
                                     "characters, no control characters).",
                      "type": "string", "pattern": TOKEN_PATTERN},
            "nextChangesToken": {"description": "The token to read the next page with; stored "
                                                "as the cursor (1 to 4096 characters, no control "
                                                "characters).",
                                 "type": "string", "pattern": TOKEN_PATTERN},
            "hasMore": {"description": "`true` when more pages follow.", "type": "boolean"},
            "changesTokenExpired": {
                "description": "`true` when Health Connect reported the token as expired: not "
                               "an empty success; the engine asks for a re-read (`reconcile`).",
                "type": "boolean"},
            "changes": {
                "description": f"The changes, in order. At most {MAX_BATCH} items. Each item "
                               "has exactly one of `upsertion` or `deletion`.",
                "type": "array",
                "maxItems": MAX_BATCH,
                "items": {
                    "description": "One change: exactly one of `upsertion` (a sample) or "
                                   "`deletion` (a record id).",
                    "type": "object",
                    "additionalProperties": False,
                    "minProperties": 1,
                    "maxProperties": 1,
                    "properties": {
                        "upsertion": ref("sample.schema.json",
                                         description="An inserted or updated record."),
                        "deletion": {
                            "description": "A deleted record.",
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["recordId"],
                            "properties": {
                                "recordId": common("id", "The deleted record's "
                                                         "`metadata.id`."),
                            },
                        },
                    },
                },
            },
        },
        ["recordTypes", "token", "nextChangesToken", "hasMore", "changesTokenExpired", "changes"],
        EXAMPLES["healthconnect.changes"])
    out["samples.upsert"] = envelope(
        "samples.upsert", "samples.upsert envelope",
        "Samples from any other provider (cloud APIs, webhooks). Samples may be of different "
        "metrics; ids must be unique within the envelope (checked by the decoder).",
        {
            "provider": common("provider", "The provider the samples come from."),
            "samples": batch("The samples to insert or replace."),
        },
        ["provider", "samples"], EXAMPLES["samples.upsert"])
    out["samples.delete"] = envelope(
        "samples.delete", "samples.delete envelope",
        "Deletions by id for a provider. An id never seen is kept as a tombstone. Ids must be "
        "unique within the envelope (checked by the decoder).",
        {
            "provider": common("provider", "The provider whose samples are deleted."),
            "ids": {"description": f"Ids of the samples to delete. At most {MAX_BATCH} items.",
                    "type": "array", "maxItems": MAX_BATCH,
                    "items": ref("common.schema.json", "id")},
        },
        ["provider", "ids"], EXAMPLES["samples.delete"])
    out["checkin"] = envelope(
        "checkin", "checkin envelope",
        "A device ran a sync for these metrics and reported in, even with no data. Drives "
        "staleness and whether a day is `known`.",
        {
            "provider": common("provider", "The provider that synced (`healthkit`, "
                                           "`health_connect`, `fitbit`, ...)."),
            "metrics": {"description": "The metrics the sync covered (at least one; any "
                                       "accepted type name).",
                        "type": "array", "minItems": 1, "maxItems": MAX_BATCH,
                        "items": ref("common.schema.json", "typeName")},
            "at": common("dateTime", "When the sync ran on the device."),
        },
        ["provider", "metrics", "at"], EXAMPLES["checkin"])
    out["reconcile"] = envelope(
        "reconcile", "reconcile envelope",
        "An authoritative re-read of a window for one provider and metric. Every live sample of "
        "that user/provider/metric whose start lies in the window, absent from `samples`, and "
        "last written before this envelope's `receivedAt`, is deleted; the others are upserted. "
        "The decoder also rejects `window.from` after `window.to`, samples of another metric, "
        "and duplicate ids.",
        {
            "provider": common("provider", "The provider that was re-read."),
            "metric": common("typeName", "The metric that was re-read; every sample must be of "
                                         "this metric."),
            "window": {
                "description": "The re-read window of sample start times.",
                "type": "object",
                "additionalProperties": False,
                "required": ["from", "to"],
                "properties": {
                    "from": common("dateTime", "Start of the window; not after `to`."),
                    "to": common("dateTime", "End of the window."),
                },
            },
            "samples": batch("Every sample the provider has in the window (may be empty: "
                             "then every older live sample in the window is deleted)."),
        },
        ["provider", "metric", "window", "samples"], EXAMPLES["reconcile"])
    out["config.sources"] = envelope(
        "config.sources", "config.sources envelope",
        "Overlap priority of origins for one metric, highest first. Applies to `user`, or to "
        "every user with `*`; folded in log order.",
        {
            "metric": common("typeName", "The metric the priority applies to."),
            "priority": {"description": "Origins, highest priority first. Empty = back to the "
                                        "documented default (a watch over a phone).",
                         "type": "array", "maxItems": MAX_BATCH,
                         "items": ref("common.schema.json", "origin")},
        },
        ["metric", "priority"], EXAMPLES["config.sources"])
    out["config.provider"] = envelope(
        "config.provider", "config.provider envelope",
        "Expected check-in interval of a provider, optionally for a cohort. Drives staleness.",
        {
            "provider": common("provider", "The provider configured."),
            "expectedCheckinSeconds": {
                "description": "Seconds after the last check-in at which a (user, provider, "
                               "metric) becomes stale: 1 to 31622400 (366 days).",
                "type": "integer", "minimum": 1, "maximum": 31622400,
                "examples": [3600, 86400]},
            "cohort": {"description": "Optional cohort the setting is for (1 to 64 characters "
                                      "of `A-Z a-z 0-9 . _ : -`).",
                       "type": "string", "minLength": 1, "maxLength": 64,
                       "pattern": COHORT_PATTERN, "examples": ["ios-background"]},
        },
        ["provider", "expectedCheckinSeconds"], EXAMPLES["config.provider"])
    out["config.ownOrigins"] = envelope(
        "config.ownOrigins", "config.ownOrigins envelope",
        "Origins whose samples are the backend's own writes read back: kept in the log, ignored "
        "by the projections.",
        {
            "origins": {"description": "The backend's own origins (may be empty).",
                        "type": "array", "maxItems": MAX_BATCH,
                         "items": ref("common.schema.json", "origin")},
        },
        ["origins"], EXAMPLES["config.ownOrigins"])
    return out


def envelope_schema():
    return {
        "$schema": DRAFT,
        "$id": BASE + "envelope.schema.json",
        "title": "Recount ingest envelope",
        "description": (
            "One NDJSON line of Recount ingest input. Dispatches on `kind` to the schema of that "
            "kind. Validate with `format` assertion on (date-time is checked for calendar "
            "validity) and ECMA-262 regular expressions (`$` matches only at the end of the "
            "string)."
        ),
        "type": "object",
        "required": ["kind"],
        "properties": {
            "kind": {"description": "The envelope kind; selects the schema of the rest.",
                     "enum": KINDS},
        },
        "allOf": [
            {"if": {"properties": {"kind": {"const": k}}, "required": ["kind"]},
             "then": {"$ref": k + ".schema.json"}}
            for k in KINDS
        ],
        "examples": [ex for k in KINDS for ex in EXAMPLES[k]],
    }


def all_schemas():
    files = {"common.schema.json": common_schema(), "sample.schema.json": sample_schema(),
             "envelope.schema.json": envelope_schema()}
    for k, s in envelopes().items():
        files[k + ".schema.json"] = s
    return files


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for name, schema in all_schemas().items():
        text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
        path = HERE / name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if check:
        for n in stale:
            print(f"stale: schemas/{n} (run python3 schemas/generate.py)")
        sys.exit(1 if stale else 0)


if __name__ == "__main__":
    main()
