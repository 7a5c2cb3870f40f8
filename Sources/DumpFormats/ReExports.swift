import Decompression

// Callers of DumpReader see these through DumpFormats alone (IAPScreenCore does not
// depend on Decompression directly).
public typealias InputError = Decompression.InputError
public typealias InputCompression = Decompression.InputCompression
public typealias ReadBuffers = Decompression.ReadBuffers
