/// Bad input on the command line (an invalid item, a missing file, a malformed URL, options that
/// contradict each other): printed as one line on standard error, exit status
/// ``ExitStatus/badInput``.
struct CommandLineError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
