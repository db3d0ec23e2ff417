/// The keyed container of ``XMLTreeDecoder``: keys name child elements, attributes, or the
/// element's own text (see the rules on ``XMLTreeDecoder``).
struct XMLKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let element: XMLTreeElement
    let decoder: XMLElementDecoder
    private let childrenByName: [String: [XMLTreeElement]]
    private let attributesByName: [String: String]

    init(element: XMLTreeElement, decoder: XMLElementDecoder) {
        self.element = element
        self.decoder = decoder
        var children: [String: [XMLTreeElement]] = [:]
        for child in element.childElements { children[child.name, default: []].append(child) }
        self.childrenByName = children
        var attributes: [String: String] = [:]
        for attribute in element.attributes where attributes[attribute.name] == nil {
            attributes[attribute.name] = attribute.value
        }
        self.attributesByName = attributes
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        var names = Set(childrenByName.keys).union(attributesByName.keys)
        if !element.directText.isEmpty { names.insert(decoder.configuration.textKey) }
        return names.sorted().compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool { lookup(key) != nil }

    /// What `key` names in the element, or nil when it names nothing.
    private func lookup(_ key: Key) -> XMLDecodingValue? {
        let name = key.stringValue
        if let children = childrenByName[name] { return .elements(children, name: name, parent: element) }
        if let value = attributesByName[name] { return .attribute(value, name: name, owner: element) }
        if name == decoder.configuration.textKey { return .text(element.directText, owner: element) }
        return nil
    }

    /// The value for `key`; an absent key is an empty list of elements, which decodes as an
    /// empty array or as nil.
    private func valueOrAbsent(_ key: Key) -> XMLDecodingValue {
        lookup(key) ?? .elements([], name: key.stringValue, parent: element)
    }

    private func decodeAny<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = lookup(key) else {
            if T.self is any XMLDefaultsToEmpty.Type {
                return try decoder.child(valueOrAbsent(key), key: key).decodeValue(T.self)
            }
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "<\(element.name)> at line \(element.line) has no child element or attribute "
                        + "named '\(key.stringValue)'"))
        }
        return try decoder.child(value, key: key).decodeValue(T.self)
    }

    func decodeNil(forKey key: Key) throws -> Bool { lookup(key)?.isNil ?? true }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeAny(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeAny(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeAny(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeAny(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeAny(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeAny(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeAny(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeAny(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeAny(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeAny(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeAny(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeAny(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeAny(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeAny(type, forKey: key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decodeAny(type, forKey: key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder.child(valueOrAbsent(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(valueOrAbsent(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        XMLElementDecoder(
            value: .element(element), codingPath: codingPath, configuration: decoder.configuration,
            session: decoder.session)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(valueOrAbsent(key), key: key) }
}

/// Types that decode from an absent key as their empty value rather than failing: arrays,
/// so that a feed without items decodes `items: [Item]` as `[]`.
protocol XMLDefaultsToEmpty {}

extension Array: XMLDefaultsToEmpty {}
