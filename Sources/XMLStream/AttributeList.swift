import CLibXML2

/// The attributes libxml2 hands to `startElementNs`: five pointers each — localname,
/// prefix, namespace URI, value start, value end (the value is not NUL-terminated).
struct AttributeList: Sequence {
    struct Attribute {
        let localName: UnsafePointer<xmlChar>
        let prefix: UnsafePointer<xmlChar>?
        let uri: UnsafePointer<xmlChar>?
        let value: UnsafeBufferPointer<xmlChar>

        /// `xsi:` — bound to the XML Schema instance namespace, or written with that prefix
        /// by a dump that forgot to declare it.
        var isSchemaInstance: Bool {
            if let uri { return String(cString: uri) == "http://www.w3.org/2001/XMLSchema-instance" }
            if let prefix { return matches(prefix, "xsi") }
            return false
        }
    }

    let count: Int
    let pointers: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?

    struct Iterator: IteratorProtocol {
        let list: AttributeList
        var index = 0

        mutating func next() -> Attribute? {
            while index < list.count, let p = list.pointers {
                let base = index * 5
                index += 1
                guard let localName = p[base], let start = p[base + 3], let end = p[base + 4], end >= start else {
                    continue
                }
                return Attribute(
                    localName: localName, prefix: p[base + 1], uri: p[base + 2],
                    value: UnsafeBufferPointer(start: start, count: end - start))
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(list: self) }
}
