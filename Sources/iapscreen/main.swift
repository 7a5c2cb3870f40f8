// Linking mimalloc replaces the process's malloc (see Sources/CMimalloc/shim.h).
import CMimalloc
import IAPScreenCore

#if canImport(Glibc)
import Glibc
#endif

exit(IAPScreen.main(Array(CommandLine.arguments.dropFirst())))
