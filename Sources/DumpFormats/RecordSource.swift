import Decompression
import IAPBasics

/// One reader per layout, pulling items from a `RecordBuffer`.
protocol RecordSource: AnyObject {
    /// The next item. With `shard` (a sharded run's worker), a layout that can find a
    /// record's order id alone gives another shard's record as `.elsewhere`, unread; one
    /// that cannot reads every record.
    func read(shard: ShardSpec?) throws(InputError) -> SourceItem?
    /// Where the item `read` gave last can be read again from (negative: nowhere known), when
    /// the layout knows better than the buffer's place before the read (XML: libxml2 reads
    /// ahead); nil: the buffer's place is right.
    var lastItemStart: Int64? { get }
}

extension RecordSource {
    var lastItemStart: Int64? { nil }
}

extension RecordSource {
    func next() throws(InputError) -> DumpItem? {
        while let item = try read(shard: nil) {
            if case .item(let item, _) = item { return item }
        }
        return nil
    }

    func next(in shard: ShardSpec) throws(InputError) -> SourceItem? {
        try read(shard: shard)
    }
}
