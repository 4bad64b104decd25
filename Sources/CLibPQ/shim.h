// libpq, PostgreSQL's C client library (Debian: libpq-dev; Homebrew: libpq).
#include <libpq-fe.h>
