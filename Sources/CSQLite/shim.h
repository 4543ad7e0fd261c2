#ifndef RECOUNT_CSQLITE_SHIM_H
#define RECOUNT_CSQLITE_SHIM_H
#include <sqlite3.h>

/// `SQLITE_TRANSIENT` (a cast macro Swift cannot import): SQLite copies a bound value at once.
static inline sqlite3_destructor_type recount_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
