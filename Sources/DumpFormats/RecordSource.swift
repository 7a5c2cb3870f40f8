import Decompression

/// One reader per layout, pulling items from a `RecordBuffer`.
protocol RecordSource: AnyObject {
    func next() throws(InputError) -> DumpItem?
}
