import FuzzSupport
@_cdecl("LLVMFuzzerTestOneInput") public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt { 0 }

/// The executable's entry point (SwiftPM aliases `main` to it): libFuzzer's driver.
@_cdecl("urlform_main")
public func urlformMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1)!, size) }
}
