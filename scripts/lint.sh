#!/usr/bin/env bash
# Lint and format checks (CI runs this after scripts/ci-deps.sh, which installs clang-format and black).
#   - biome lints all TypeScript/JavaScript (biome.json: errors fail, warnings are shown);
#   - the files listed in .format-checked must be formatted: biome (TS/JS), clang-format (.clang-format: C++),
#     black -l 120 (Python).
# `bash scripts/lint.sh --fix [FILE...]` formats the listed files, and the FILEs given, which it adds to the list.
set -euo pipefail
cd "$(dirname "$0")/.."
biome=${BIOME:-node_modules/.bin/biome}
[ -x "$biome" ] || { echo "lint: $biome is missing: run npm ci" >&2; exit 1; }
fix=0
if [ "${1:-}" = --fix ]; then
  fix=1
  shift
  for f in "$@"; do grep -qxF "$f" .format-checked || echo "$f" >> .format-checked; done
fi
mapfile -t listed < <(grep -v '^\s*\(#\|$\)' .format-checked)
ts=() cpp=() py=()
for f in "${listed[@]}"; do
  [ -f "$f" ] || { echo "lint: $f is listed in .format-checked but does not exist" >&2; exit 1; }
  case "$f" in
    *.ts | *.mjs | *.js) ts+=("$f") ;;
    *.cpp | *.h | *.cu) cpp+=("$f") ;;
    *.py) py+=("$f") ;;
    *) echo "lint: no formatter for $f" >&2; exit 1 ;;
  esac
done
status=0
if [ $fix = 1 ]; then
  "$biome" format --write "${ts[@]}"
  clang-format -i "${cpp[@]}"
  black -q -l 120 "${py[@]}"
else
  "$biome" lint --max-diagnostics=50 || status=1
  "$biome" format "${ts[@]}" || status=1
  for f in "${cpp[@]}"; do
    clang-format --dry-run --Werror "$f" || status=1
  done
  black --check -q -l 120 "${py[@]}" || status=1
fi
[ $status = 0 ] && echo "lint: biome lint clean; ${#ts[@]} TS/JS, ${#cpp[@]} C++, ${#py[@]} Python files formatted"
exit $status
