#!/usr/bin/env bash
# Builds LiteRecord's libFuzzer targets (Fuzz/FuzzTargets.swift) and runs one of them.
#
#   Fuzz/run.sh [date|row|json] [seconds] [more libFuzzer flags...]
#   Fuzz/run.sh row 300 -jobs=2 -workers=2
#
# The fuzzer is one binary, .build/fuzz/literecord-fuzz, compiled by swiftc from every file of
# Sources/LiteRecord plus Fuzz/FuzzTargets.swift as a single module, with
# -sanitize=fuzzer,address: the whole library is instrumented, and the targets reach internal
# code. It is rebuilt when a source file is newer (about 2-3 minutes). Package.swift, swift build
# and CI are not involved. The corpus grows in .build/fuzz/corpus/<target>; crashes are written
# to .build/fuzz/<target>-crash-*. Replay one input (no fuzzing) with:
#   LITERECORD_FUZZ_TARGET=<target> .build/fuzz/literecord-fuzz .build/fuzz/<target>-crash-<hash>
set -euo pipefail
cd "$(dirname "$0")/.."

target="${1:-row}"
seconds="${2:-60}"
shift $(($# < 2 ? $# : 2))
case "$target" in date | row | json) ;; *) echo "unknown target $target (date, row, json)" >&2; exit 2 ;; esac

out=.build/fuzz
binary="$out/literecord-fuzz"
mkdir -p "$out/corpus/$target"

if [ ! -x "$binary" ] || [ -n "$(find Sources/LiteRecord Fuzz -name '*.swift' -newer "$binary")" ]; then
    echo "building $binary ..." >&2
    mapfile -t sources < <(find Sources/LiteRecord -name '*.swift' | sort)
    # ld.gold warns once per sanitizer symbol it cannot export; the warnings are harmless.
    swiftc -swift-version 6 -parse-as-library -O -g -sanitize=fuzzer,address \
        -module-name LiteRecordFuzz -I Sources/CSQLite \
        "${sources[@]}" Fuzz/FuzzTargets.swift -o "$binary" \
        2> >(grep -v "Cannot export local symbol" >&2)
fi

# A few seeds, so the first minutes are not spent discovering the grammar.
corpus="$out/corpus/$target"
if [ -z "$(ls -A "$corpus")" ]; then
    case "$target" in
    date)
        for seed in "2024-05-17" "2024-05-17 13:45:30.25" "2024-05-17T13:45:30.123456789Z" \
            "2024-05-17 15:45:30+02:00" "0000-01-01 00:00:00" "9999-12-31 23:59:59.9999999" "-1.5e3"; do
            printf '%s' "$seed" > "$corpus/seed-$(printf '%s' "$seed" | md5sum | cut -c1-8)"
        done ;;
    json)
        for seed in '["a","b"]' '{"wins":3,"label":"x","values":[1.5]}' '{"circle":{"radius":1}}' \
            '{"node":{"_0":[{"leaf":{"_0":1}}]}}' '{"k":1}' '["2024-05-17 13:45:30"]' '[1,[2,[3]]]'; do
            printf '%s' "$seed" > "$corpus/seed-$(printf '%s' "$seed" | md5sum | cut -c1-8)"
        done ;;
    row)
        # Selector, then (name, class, length, payload) per column: "int" INTEGER 1, "string" TEXT "ab".
        printf '\x00\x00\x01\x01\x01\x06\x03\x02ab' > "$corpus/seed-flat"
        printf '\x02\x11\x03\x09["a","b"]\x12\x03\x07{"k":1}' > "$corpus/seed-json" ;;
    esac
fi

LITERECORD_FUZZ_TARGET="$target" "$binary" -max_total_time="$seconds" -artifact_prefix="$out/$target-" \
    -print_final_stats=1 "$@" "$corpus"
