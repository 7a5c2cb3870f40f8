#include <sqlite3.h>

// SQLite counts every allocation under one process-wide mutex (its memory statistics), which
// iapscreen never reads: 0.3 s of a 10^6-order night's ledger write went to that mutex alone.
// sqlite3_config is variadic, which Swift cannot call; it must run before SQLite initialises.
static inline int iapscreen_sqlite3_skip_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
