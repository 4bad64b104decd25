#ifndef LITERECORD_CSQLITE_SHIM_H
#define LITERECORD_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
// Binding with it tells SQLite to copy the bytes before the call returns.
static inline sqlite3_destructor_type literecord_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
