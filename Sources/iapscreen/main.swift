import IAPScreenCore

#if canImport(Glibc)
import Glibc
#endif

exit(IAPScreen.main(Array(CommandLine.arguments.dropFirst())))
