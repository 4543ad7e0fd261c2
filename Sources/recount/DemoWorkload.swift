import Foundation

/// Two weeks of five users' uploads, generated the same way every time, for `recount demo`:
/// phones and watches counting the same walks, nights of sleep, and the things that go wrong.
///
/// - u1: a watch and a phone, every day in order.
/// - u2: goes silent after Friday 2026-07-17: the weekend is unknown on Monday, not zero.
/// - u3: reinstalls the app on 2026-07-13, and the phone re-delivers all its history from a
///   nil anchor.
/// - u4: the watch revises the night ending 2026-07-15, and a mistaken step sample is deleted.
/// - u5: on Android; its changes token expires on 2026-07-16, and the app re-reads (reconciles)
///   the window the next day.
enum DemoWorkload {
    static let users = ["u1", "u2", "u3", "u4", "u5"]
    /// Monday 2026-07-06 to Sunday 2026-07-19.
    static let days = (6...19).map { "2026-07-\($0 < 10 ? "0" : "")\($0)" }

    /// The uploads, one envelope per line, in the order the backend received them.
    static var ndjson: String {
        var lines: [String] = []
        for (index, day) in days.enumerated() {
            let next = index + 1 < days.count ? days[index + 1] : "2026-07-20"
            for (number, user) in users.enumerated() {
                if user == "u2" && day >= "2026-07-18" { continue }
                let received = "\(next)T03:00:00Z"
                if user == "u5" {
                    lines += android(user, day: day, index: index, received: received)
                    continue
                }
                let anchor = index == 0 ? "null" : "\"\(anchorText(user, index))\""
                var steps = walks(user, day: day, seed: number * 31 + index)
                var deleted: [String] = []
                if user == "u4" && day == "2026-07-12" { steps.append(mistake(user, day: day)) }
                if user == "u4" && day == "2026-07-13" { deleted.append("\(user)-\(days[index - 1])-mistake") }
                if user == "u3" && day == "2026-07-13" {
                    // The reinstalled app starts again from a nil anchor: everything again.
                    let history = days[...index].enumerated().flatMap { walks(user, day: $1, seed: number * 31 + $0) }
                    lines.append(
                        delivery(user, "steps", anchor: "null", index: index, received: received, added: history))
                } else {
                    lines.append(
                        delivery(
                            user, "steps", anchor: anchor, index: index, received: received, added: steps,
                            deleted: deleted))
                }
                var nightDeleted: [String] = []
                var night = sleep(
                    user, day: day, previous: index == 0 ? "2026-07-05" : days[index - 1], start: "23:10", id: "night")
                if user == "u4" && day == "2026-07-15" {
                    // The watch reprocesses the night: it deletes it and adds the revised one.
                    lines.append(
                        delivery(
                            user, "sleep", anchor: anchor, index: index, received: "\(day)T09:00:00Z", added: [night]))
                    nightDeleted = ["\(user)-\(day)-night"]
                    night = sleep(user, day: day, previous: days[index - 1], start: "22:35", id: "night-revised")
                }
                lines.append(
                    delivery(
                        user, "sleep", anchor: anchor, index: index, received: received, added: [night],
                        deleted: nightDeleted))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An archived anchor stands in as base64 text, as the app sends it.
    static func anchorText(_ user: String, _ index: Int) -> String {
        Data("\(user)-anchor-\(index)".utf8).base64EncodedString()
    }

    static func delivery(
        _ user: String, _ type: String, anchor: String, index: Int, received: String, added: [String],
        deleted: [String] = []
    ) -> String {
        let deletions = deleted.map { #"{"uuid":"\#($0)"}"# }.joined(separator: ",")
        return
            #"{"kind":"healthkit.delivery","user":"\#(user)","receivedAt":"\#(received)","type":"\#(type)","anchor":\#(anchor),"newAnchor":"\#(anchorText(user, index + 1))","added":[\#(added.joined(separator: ","))],"deleted":[\#(deletions)]}"#
    }

    /// A morning walk both devices count, and an evening walk only the watch does.
    static func walks(_ user: String, day: String, seed: Int) -> [String] {
        let walk = 2_000 + (seed * 7_919) % 4_000
        return [
            steps(
                "\(user)-\(day)-watch-am", day, "08:00", "09:00", walk, origin: "com.apple.health.watch",
                device: "Apple Watch"),
            steps(
                "\(user)-\(day)-phone-am", day, "08:05", "08:55", walk * 9 / 10, origin: "com.apple.health.phone",
                device: "iPhone"),
            steps(
                "\(user)-\(day)-watch-pm", day, "18:00", "18:40", walk / 2, origin: "com.apple.health.watch",
                device: "Apple Watch"),
        ]
    }

    static func mistake(_ user: String, day: String) -> String {
        steps("\(user)-\(day)-mistake", day, "13:00", "13:01", 9_999, origin: "com.example.manual", device: "iPhone")
    }

    static func steps(
        _ id: String, _ day: String, _ from: String, _ to: String, _ value: Int, origin: String, device: String
    ) -> String {
        #"{"id":"\#(id)","type":"steps","start":"\#(day)T\#(from):00-07:00","end":"\#(day)T\#(to):00-07:00","value":\#(value),"unit":"count","origin":"\#(origin)","device":"\#(device)"}"#
    }

    static func sleep(_ user: String, day: String, previous: String, start: String, id: String) -> String {
        #"{"id":"\#(user)-\#(day)-\#(id)","type":"sleep","start":"\#(previous)T\#(start):00-07:00","end":"\#(day)T06:30:00-07:00","stage":"asleep","origin":"com.apple.health.watch","device":"Apple Watch"}"#
    }

    /// A Health Connect user: a page a day; the token expires on 2026-07-16 and the app
    /// reconciles the window on 2026-07-17.
    static func android(_ user: String, day: String, index: Int, received: String) -> [String] {
        func sample(_ index: Int) -> String {
            let day = days[index]
            return
                #"{"id":"\#(user)-\#(day)","type":"Steps","start":"\#(day)T10:00:00+02:00","end":"\#(day)T11:00:00+02:00","value":\#(3_000 + (index * 523) % 2_500),"unit":"count","origin":"com.google.android.apps.fitness"}"#
        }
        func page(expired: Bool, changes: String) -> String {
            #"{"kind":"healthconnect.changes","user":"\#(user)","receivedAt":"\#(received)","recordTypes":["Steps"],"token":"\#(user)-t\#(index)","nextChangesToken":"\#(user)-t\#(index + 1)","hasMore":false,"changesTokenExpired":\#(expired),"changes":[\#(changes)]}"#
        }
        switch day {
        case "2026-07-16": return [page(expired: true, changes: "")]
        case "2026-07-17":
            // The app re-reads the window since its last good read: the 16th's walk arrives now.
            let window = #"{"from":"2026-07-15T03:00:00Z","to":"\#(received)"}"#
            let samples = (index - 2...index).map(sample).joined(separator: ",")
            return [
                #"{"kind":"reconcile","user":"\#(user)","receivedAt":"\#(received)","provider":"health_connect","metric":"steps","window":\#(window),"samples":[\#(samples)]}"#,
                page(expired: false, changes: ""),
            ]
        default: return [page(expired: false, changes: #"{"upsertion":\#(sample(index))}"#)]
        }
    }
}
