import Foundation

/// The `Encoder` that ``URLEncodedFormEncoder`` hands to `Encodable` values. It writes into a
/// ``URLEncodedFormBuilder`` tree; the containers below share nodes by reference, so nested
/// containers can keep writing after they are returned.
struct URLEncodedFormValueEncoder: Encoder {
    let node: URLEncodedFormBuilder
    let context: URLEncodedFormEncodingContext
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(
            URLEncodedFormKeyedContainer<Key>(node: node, context: context, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return URLEncodedFormUnkeyedContainer(node: node, context: context, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        URLEncodedFormSingleValueContainer(node: node, context: context, codingPath: codingPath)
    }
}

/// A coding key built from a string or an index, for the paths of nested values.
struct URLEncodedFormKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue; self.intValue = nil }
    init(intValue: Int) { self.stringValue = String(intValue); self.intValue = intValue }
}

struct URLEncodedFormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: URLEncodedFormBuilder
    let context: URLEncodedFormEncodingContext
    let codingPath: [any CodingKey]

    private func child(_ key: Key) -> URLEncodedFormBuilder { node.member(context.convert(key: key.stringValue)) }

    mutating func encodeNil(forKey key: Key) throws { child(key).set(.null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try context.encode(value, into: child(key), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = child(key)
        nested.becomeObject()
        return KeyedEncodingContainer(
            URLEncodedFormKeyedContainer<NestedKey>(node: nested, context: context, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = child(key)
        nested.becomeArray()
        return URLEncodedFormUnkeyedContainer(node: nested, context: context, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let key = URLEncodedFormKey(stringValue: "super")
        return URLEncodedFormValueEncoder(
            node: node.member(key.stringValue), context: context, codingPath: codingPath + [key])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        URLEncodedFormValueEncoder(node: child(key), context: context, codingPath: codingPath + [key])
    }
}

struct URLEncodedFormUnkeyedContainer: UnkeyedEncodingContainer {
    let node: URLEncodedFormBuilder
    let context: URLEncodedFormEncodingContext
    let codingPath: [any CodingKey]
    var count: Int { node.elementCount }

    private var nextKey: URLEncodedFormKey { URLEncodedFormKey(intValue: count) }

    mutating func encodeNil() throws { node.appendElement().set(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = nextKey
        try context.encode(value, into: node.appendElement(), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let key = nextKey
        let nested = node.appendElement()
        nested.becomeObject()
        return KeyedEncodingContainer(
            URLEncodedFormKeyedContainer<NestedKey>(node: nested, context: context, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = nextKey
        let nested = node.appendElement()
        nested.becomeArray()
        return URLEncodedFormUnkeyedContainer(node: nested, context: context, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let key = nextKey
        return URLEncodedFormValueEncoder(node: node.appendElement(), context: context, codingPath: codingPath + [key])
    }
}

struct URLEncodedFormSingleValueContainer: SingleValueEncodingContainer {
    let node: URLEncodedFormBuilder
    let context: URLEncodedFormEncodingContext
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try context.encode(value, into: node, codingPath: codingPath)
    }
}
