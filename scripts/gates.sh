#!/usr/bin/env bash
# gates.sh — the build gates (docs/DESIGN.md, "Build gates"): formatting, file size, lint suppressions,
# crate docs, clippy. Every gate runs, then the failures are listed; exit 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO="${CARGO:-cargo}"
# The gate, not a preference: docs/DESIGN.md ("Build gates") fixes both numbers.
MAX_LINES=300
SUPPRESSION_BASE=0
SOURCE_DIRS=(crates services)

usage() {
    cat <<EOF
Usage: $0 [--help]

Runs every build gate and reports each failure on one line:
  fmt          cargo fmt --all --check
  file-size    no .rs file under ${SOURCE_DIRS[*]}/ over $MAX_LINES lines
  suppressions #[allow(…)] / #[expect(…)] (and #![…], cfg_attr(…, allow(…))) in .rs files;
               prints base=$SUPPRESSION_BASE current=N and fails when N > $SUPPRESSION_BASE
  crate-docs   every crate's and service's lib.rs / main.rs starts with a //! line
  clippy       cargo clippy --workspace --all-targets -- -D warnings

Environment (defaults in brackets):
  CARGO  [$CARGO]
EOF
}

case "${1:-}" in
    "") ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
esac

FAILED=()
fail() { echo "gates: FAIL $1: $2" >&2; FAILED+=("$1"); }
header() { echo "== gate: $1" >&2; }

# .rs files under the source dirs that exist, outside any target/ directory, NUL-separated.
rust_files() {
    local dirs=() dir
    for dir in "${SOURCE_DIRS[@]}"; do [ -d "$dir" ] && dirs+=("$dir"); done
    [ "${#dirs[@]}" -gt 0 ] || return 0
    find "${dirs[@]}" -name target -prune -o -type f -name '*.rs' -print0 | sort -z
}

header fmt
"$CARGO" fmt --all --check || fail fmt "cargo fmt --all --check found unformatted code (run: cargo fmt --all)"

header file-size
while IFS= read -r -d '' file; do
    lines="$(wc -l <"$file")"
    if [ "$lines" -gt "$MAX_LINES" ]; then
        fail file-size "$file has $lines lines (max $MAX_LINES)"
    fi
done < <(rust_files)

header suppressions
# Outer and inner attributes, and the same hidden in cfg_attr(…).
SUPPRESSION_RE='#!?\[[[:space:]]*(allow|expect)[[:space:]]*\(|#!?\[[[:space:]]*cfg_attr\(.*[^[:alnum:]_](allow|expect)[[:space:]]*\('
hits="$(rust_files | xargs -0 -r grep -nHE "$SUPPRESSION_RE" || true)"
current=0
[ -z "$hits" ] || current="$(printf '%s\n' "$hits" | wc -l)"
echo "base=$SUPPRESSION_BASE current=$current"
if [ "$current" -gt "$SUPPRESSION_BASE" ]; then
    printf '%s\n' "$hits" | sed 's/^/  /' >&2
    fail suppressions "$current lint suppression(s), base is $SUPPRESSION_BASE (fix the code instead)"
fi

header crate-docs
while IFS= read -r -d '' file; do
    case "$file" in
        */src/lib.rs|*/src/main.rs) ;;
        *) continue ;;
    esac
    first="$(head -n 1 "$file")"
    if [ "${first:0:3}" != "//!" ]; then
        fail crate-docs "$file does not start with a //! line saying what the crate is for"
    fi
done < <(rust_files)

header clippy
"$CARGO" clippy --workspace --all-targets -- -D warnings || fail clippy "cargo clippy --workspace --all-targets -- -D warnings reported problems (above)"

if [ "${#FAILED[@]}" -gt 0 ]; then
    echo "gates: ${#FAILED[@]} failure(s) in: ${FAILED[*]}" >&2
    exit 1
fi
echo "gates: all passed" >&2
