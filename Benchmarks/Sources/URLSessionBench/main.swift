import BenchSupport

BenchDriver.runAndExit(clientName: "urlsession") { arguments in try URLSessionClient(arguments) }
