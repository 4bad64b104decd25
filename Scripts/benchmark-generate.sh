#!/usr/bin/env bash
# Times `literecord generate` (release build) on Northwind and on a database of 200 tables of
# 1,000 rows each, three runs each: wall time and peak resident memory (getrusage's ru_maxrss,
# as GNU time's %M reports it). Nothing is asserted; the figures go in the README.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product literecord >/dev/null
tool="$(swift build -c release --show-bin-path)/literecord"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sqlite3 "$work/northwind.sqlite" <../shared/datasets/northwind/northwind.sql >/dev/null
{
    echo "BEGIN;"
    for i in $(seq 1 200); do
        echo "CREATE TABLE t$i (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC, qty INTEGER,
            created DATETIME, note TEXT, flag BOOLEAN, data BLOB, ratio REAL, code VARCHAR(10) UNIQUE,
            parent INTEGER REFERENCES t1(id), extra);"
        echo "CREATE INDEX t${i}_name ON t$i(name, qty);"
        echo "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000)
            INSERT INTO t$i SELECT x, 'name ' || x, CASE WHEN x % 2 THEN x ELSE x + 0.5 END, x,
            '2024-01-01 10:00:' || printf('%02d', x % 60), NULL, x % 2, NULL, x / 3.0, 'c' || x, NULL,
            CASE WHEN x % 3 THEN x ELSE 'text' END FROM n;"
    done
    echo "COMMIT;"
} | sqlite3 "$work/wide.sqlite"

for db in northwind wide; do
    for run in 1 2 3; do
        /usr/bin/time -f "$db run $run: %e s wall, %U s user CPU, %M KB peak RSS" \
            "$tool" generate "$work/$db.sqlite" --output "$work/$db.swift"
    done
    echo "$db: $(wc -l <"$work/$db.swift") lines of Swift, $(du -k "$work/$db.sqlite" | cut -f1) KB database"
done
