import BenchSupport

BenchDriver.runAndExit(clientName: "curlew") { arguments in CurlewClient(arguments) }
