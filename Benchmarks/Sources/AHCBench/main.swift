import BenchSupport

BenchDriver.runAndExit(clientName: "ahc") { arguments in try AHCClient(arguments) }
