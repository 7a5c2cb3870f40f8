import Decompression

// The types of DumpReader's interface, under DumpFormats' name: a caller that reads dumps
// needs to import DumpFormats alone.
public typealias InputError = Decompression.InputError
public typealias InputCompression = Decompression.InputCompression
public typealias ReadBuffers = Decompression.ReadBuffers
