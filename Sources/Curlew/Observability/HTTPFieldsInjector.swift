import HTTPTypes
import Instrumentation

/// Writes what an instrument propagates (W3C `traceparent`, `tracestate`, baggage…) into a
/// request's header fields, replacing a field of the same name.
struct HTTPFieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        carrier[name] = value
    }
}
