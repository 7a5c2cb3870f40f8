// Linking mimalloc replaces the process's malloc (see Sources/CMimalloc/shim.h).
import CMimalloc
import IAPScreenCore

#if canImport(Glibc)
    import Glibc
#endif

// Before anything touches OpenSSL: no clean-up of it at exit (see IAPScreen.prepareProcess).
IAPScreen.prepareProcess()
let status = IAPScreen.main(Array(CommandLine.arguments.dropFirst()))
// By now every thread a command started has ended (joined), and stdout and stderr are
// flushed; only libdispatch's idle pool threads remain. A plain `exit`, not `_exit`: with
// OpenSSL's handler gone, what exit still runs (the shared libraries' finalisers) touches
// nothing a thread of ours could be using, and the sanitizers' and coverage's handlers
// (ThreadSanitizer's exit status 66, the leak check, the profile written) need it.
exit(status)
