/// The exit statuses of the contract (section 4).
enum ExitStatus: Int32 {
    case success = 0
    case failure = 1
    case usage = 2
    case someInputRejected = 3
    case verificationFailed = 4
}
