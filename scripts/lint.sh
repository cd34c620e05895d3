#!/usr/bin/env bash
# Lint and format checks (CI runs this after scripts/ci-deps.sh, which installs clang-format and black).
#   - biome lints all TypeScript/JavaScript (biome.json: errors fail, warnings are shown);
#   - every tracked source file must be formatted (the list comes from `git ls-files`, less EXCLUDE below):
#     TS/JS by biome (biome.json), C++ under native/ and ops/ by clang-format (.clang-format), Python by black -l 120.
# `bash scripts/lint.sh --fix` formats every one of them; `bash scripts/lint.sh --fix FILE...` only the FILEs given.
set -euo pipefail
cd "$(dirname "$0")/.."
biome=${BIOME:-node_modules/.bin/biome}
[ -x "$biome" ] || { echo "lint: $biome is missing: run npm ci" >&2; exit 1; }

# Tracked files that are not ours to format (vendored or generated), one path per line. None at present.
EXCLUDE=()

fix=0
if [ "${1:-}" = --fix ]; then
  fix=1
  shift
fi
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- '*.ts' '*.mts' '*.cts' '*.js' '*.mjs' '*.cjs' \
    'native/*.cpp' 'native/*.h' 'native/*.cu' 'ops/*.cpp' 'ops/*.h' 'ops/*.cu' '*.py')
fi
ts=() cpp=() py=()
for f in "${files[@]}"; do
  for x in "${EXCLUDE[@]}"; do [ "$f" = "$x" ] && continue 2; done
  # a tracked file deleted in the working tree is not checked
  [ -f "$f" ] || { [ $# -eq 0 ] && continue; echo "lint: $f does not exist" >&2; exit 1; }
  case "$f" in
    *.ts | *.mts | *.cts | *.js | *.mjs | *.cjs) ts+=("$f") ;;
    *.cpp | *.h | *.cu) cpp+=("$f") ;;
    *.py) py+=("$f") ;;
    *) echo "lint: no formatter for $f" >&2; exit 1 ;;
  esac
done
status=0
if [ $fix = 1 ]; then
  # twice: biome 2.6 settles some member chains only on a second pass (test/serve/serve.test.ts had one)
  [ ${#ts[@]} = 0 ] || { "$biome" format --write "${ts[@]}" && "$biome" format --write "${ts[@]}"; }
  [ ${#cpp[@]} = 0 ] || clang-format -i "${cpp[@]}"
  [ ${#py[@]} = 0 ] || black -q -l 120 "${py[@]}"
else
  "$biome" lint --max-diagnostics=50 || status=1
  [ ${#ts[@]} = 0 ] || "$biome" format "${ts[@]}" || status=1
  for f in "${cpp[@]}"; do
    clang-format --dry-run --Werror "$f" || status=1
  done
  [ ${#py[@]} = 0 ] || black --check -q -l 120 "${py[@]}" || status=1
fi
[ $status = 0 ] && [ $fix = 0 ] && echo "lint: biome lint clean; ${#ts[@]} TS/JS, ${#cpp[@]} C++, ${#py[@]} Python files formatted"
exit $status
