#include <libpq-fe.h>

/// PG_DIAG_SQLSTATE is a character macro, which Swift does not import.
static inline int iapscreen_pg_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
