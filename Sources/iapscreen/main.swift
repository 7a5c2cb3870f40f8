// Linking mimalloc replaces the process's malloc (see Sources/CMimalloc/shim.h).
import CMimalloc
import IAPScreenCore

#if canImport(Glibc)
    import Glibc
#endif

// Before anything touches OpenSSL: no clean-up of it at exit (see IAPScreen.prepareProcess).
// Once a night is loaded, mimalloc gives freed pages back at once instead of 25 ms later:
// the claims and reports then peak 22 MiB lower at 10^6 orders, for about 0.1 CPU-s
// (during the load the same costs a second and more, so it waits until then).
IAPScreen.prepareProcess(allocator: AllocatorTuning(afterLoad: { mi_option_set(mi_option_decommit_delay, 0) }))
let status = IAPScreen.main(Array(CommandLine.arguments.dropFirst()))
// By now every thread a command started has ended (joined), and stdout and stderr are
// flushed; only libdispatch's idle pool threads remain. A plain `exit`, not `_exit`: with
// OpenSSL's handler gone, what exit still runs (the shared libraries' finalisers) touches
// nothing a thread of ours could be using, and the sanitizers' and coverage's handlers
// (ThreadSanitizer's exit status 66, the leak check, the profile written) need it.
exit(status)
