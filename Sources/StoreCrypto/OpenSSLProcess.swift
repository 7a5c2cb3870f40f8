import COpenSSL

/// OpenSSL as the whole process sees it.
public enum OpenSSLProcess {
    /// Initialises libcrypto without registering `OPENSSL_cleanup` to run at `exit`; the
    /// first initialisation decides, so this must come before any other OpenSSL call.
    /// False when OpenSSL could not be initialised (every later call would then fail on its own).
    ///
    /// Why: `OPENSSL_cleanup` frees OpenSSL's global locks (and clears the pointers to them)
    /// and every thread's clean-up list without waiting for threads still using them. Seen:
    /// a receipt worker freeing the verifier's certificates as the process exited, inside
    /// `CRYPTO_free_ex_data`, unlocked the lock the clean-up had just freed and cleared:
    /// SIGSEGV in `pthread_rwlock_unlock(NULL)` after the summary. Our own threads are now
    /// joined before a command returns, but libdispatch's pool threads (which sign receipts
    /// in `samples`) end on their own timer, running OpenSSL's per-thread clean-up. The
    /// kernel takes the memory back at exit anyway.
    @discardableResult
    public static func initializeWithoutExitCleanup() -> Bool {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
    }
}
