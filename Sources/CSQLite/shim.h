#ifndef LITERECORD_CSQLITE_SHIM_H
#define LITERECORD_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
// Binding with it tells SQLite to copy the bytes before the call returns.
static inline sqlite3_destructor_type literecord_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_db_config is variadic, which Swift cannot call. Turning SQLITE_DBCONFIG_DQS_DML off
// makes a double-quoted name that is not a column an error instead of a text literal.
static inline int literecord_disable_double_quoted_strings_in_dml(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
}

#endif
