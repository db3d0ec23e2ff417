/// The unkeyed container of ``XMLTreeDecoder``: a list of elements, decoded in order.
struct XMLUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let elements: [XMLTreeElement]
    let decoder: XMLElementDecoder
    private(set) var currentIndex = 0

    init(elements: [XMLTreeElement], decoder: XMLElementDecoder) {
        self.elements = elements
        self.decoder = decoder
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// A decoder for the current element, after checking there is one.
    private func currentDecoder(for type: Any.Type) throws -> XMLElementDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [XMLIndexKey(currentIndex)],
                    debugDescription: "no element left: the list has \(elements.count)"))
        }
        return decoder.child(.element(elements[currentIndex]), key: XMLIndexKey(currentIndex))
    }

    private mutating func decodeAny<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try currentDecoder(for: type).decodeValue(T.self)
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if elements[currentIndex].isEmptyForDecoding {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeAny(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodeAny(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodeAny(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodeAny(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodeAny(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeAny(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeAny(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeAny(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeAny(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeAny(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeAny(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeAny(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeAny(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeAny(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeAny(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let container = try currentDecoder(for: KeyedDecodingContainer<NestedKey>.self).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try currentDecoder(for: [Any].self).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = try currentDecoder(for: Any.self)
        currentIndex += 1
        return decoder
    }
}

/// The coding key of an array position.
struct XMLIndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(_ index: Int) {
        intValue = index
        stringValue = "Index \(index)"
    }

    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.init(intValue) }
}
