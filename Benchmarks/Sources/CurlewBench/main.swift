import BenchSupport

/// `--executor session` runs the same client with its tasks on the session's own thread.
let arguments = CommandLine.arguments
let onSessionExecutor = zip(arguments, arguments.dropFirst()).contains { $0 == "--executor" && $1 == "session" }
BenchDriver.runAndExit(clientName: onSessionExecutor ? "curlew-exec" : "curlew") { arguments in CurlewClient(arguments) }
