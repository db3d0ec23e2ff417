import Foundation

/// Decodes `[Element]` from the array at a key path of a JSON document in one pass of the
/// caller's `JSONDecoder`, optionally skipping elements that fail.
///
/// The key path and mode travel in task-local values rather than in the decoder's
/// `userInfo`, so a `JSONDecoder` shared between tasks is never mutated.
struct KeyPathCollectionDecoding<Element: Decodable & Sendable>: Decodable {
    let elements: [Element]
    let failures: [LossyCollection<Element>.Failure]

    /// Decodes from `data` with `decoder`; failures are reported as ``CollectionDecodingFailure``.
    static func decode(_ data: Data, keyPath: [String], lossy: Bool, decoder: JSONDecoder) throws
        -> KeyPathCollectionDecoding
    {
        try CollectionDecodingSettings.$current.withValue(CollectionDecodingSettings(keyPath: keyPath, lossy: lossy)) {
            try decoder.decode(KeyPathCollectionDecoding.self, from: data)
        }
    }

    init(from decoder: any Decoder) throws {
        let settings = CollectionDecodingSettings.current
        var container: any UnkeyedDecodingContainer
        do {
            container = try KeyPathCollectionDecoding.arrayContainer(in: decoder, keyPath: settings.keyPath)
        } catch {
            throw CollectionDecodingFailure.keyPath(error)
        }
        var elements: [Element] = []
        var failures: [LossyCollection<Element>.Failure] = []
        if let count = container.count { elements.reserveCapacity(count) }
        var index = 0
        while !container.isAtEnd {
            do {
                elements.append(try container.decode(Element.self))
            } catch {
                guard settings.lossy else { throw CollectionDecodingFailure.element(index: index, error) }
                failures.append(LossyCollection<Element>.Failure(index: index, error: error))
                // Step over the element that failed; this cannot fail on well-formed JSON.
                _ = try container.decode(SkippedElement.self)
            }
            index += 1
        }
        self.elements = elements
        self.failures = failures
    }

    private static func arrayContainer(in decoder: any Decoder, keyPath: [String]) throws
        -> any UnkeyedDecodingContainer
    {
        guard let last = keyPath.last else { return try decoder.unkeyedContainer() }
        var container = try decoder.container(keyedBy: CollectionKey.self)
        for component in keyPath.dropLast() {
            container = try container.nestedContainer(keyedBy: CollectionKey.self, forKey: CollectionKey(component))
        }
        return try container.nestedUnkeyedContainer(forKey: CollectionKey(last))
    }
}

/// What a collection decode is asked to do.
struct CollectionDecodingSettings: Sendable {
    var keyPath: [String] = []
    var lossy = false

    @TaskLocal static var current = CollectionDecodingSettings()
}

/// Why a collection decode failed: finding the array, or decoding an element.
enum CollectionDecodingFailure: Error {
    case keyPath(any Error)
    case element(index: Int, any Error)
}

/// Decodes any value and keeps nothing, to step over an element.
private struct SkippedElement: Decodable {
    init(from decoder: any Decoder) throws {}
}

private struct CollectionKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
