#!/usr/bin/env bash
# Fresh-machine check: runs the README's parse command and `npm test` with only Node and the base system.
#  - PATH is a folder of links to node, npm, sh and basic coreutils: no python3, pdftoppm, pdftotext, tesseract,
#    LaTeX, cmake or compilers.
#  - As root it re-runs itself in a private mount namespace that lays empty read-only folders over the font
#    folders (/usr/share/fonts, /usr/local/share/fonts, /usr/share/texmf) and /dev/null over the training tools'
#    absolute paths (/usr/bin/python3*, pdftoppm, pdftotext, tesseract), so a test that opens a system font or
#    spawns /usr/bin/python3 fails here. Without root it warns and hides fonts from fontconfig only.
# `--install` first runs `npm ci` the same way, with the base system's C++ toolchain (cmake, make, g++) added to
# PATH for the native decoder; without it, run it after `npm ci`. Exit status: that of the first failing command.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${OCR_FRESH_NS:-}" != 1 ] && [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
  exec unshare -m env OCR_FRESH_NS=1 bash "$0" "$@"
fi

if [ "${OCR_FRESH_NS:-}" = 1 ]; then
  mount --make-rprivate /
  for d in /usr/share/fonts /usr/local/share/fonts /usr/share/texmf /usr/share/texlive; do
    if [ -d "$d" ]; then mount -t tmpfs -o ro,size=4k tmpfs "$d"; fi
  done
  for f in /usr/bin/python3* /usr/bin/pdftoppm /usr/bin/pdftotext /usr/bin/tesseract /usr/bin/pdflatex /usr/bin/latex; do
    if [ -e "$f" ]; then mount --bind /dev/null "$f"; fi
  done
  echo "check-fresh: font folders empty, /usr/bin/python3*, pdftoppm, pdftotext, tesseract blocked" >&2
else
  echo "check-fresh: WARNING: no private mount namespace (needs root + unshare); fonts hidden from fontconfig only" >&2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
for tool in node npm npx sh bash env cat cp mv rm mkdir rmdir ln ls chmod touch head tail sort uniq wc tr cut \
            dirname basename readlink realpath mktemp date sleep true false echo printf test uname id tee xargs \
            find sed grep diff cmp; do
  src=$(command -v "$tool") || { echo "check-fresh: $tool not found" >&2; exit 1; }
  ln -s "$src" "$tmp/bin/$tool"
done
# An empty fontconfig: no font folders, no cache, for libraries that ask fontconfig (sharp's libvips).
cat > "$tmp/fonts.conf" <<'CONF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig><cachedir>/nonexistent/fontconfig-cache</cachedir></fontconfig>
CONF

# The base system's native toolchain, for `npm ci` only.
mkdir "$tmp/toolchain"
for tool in cmake make gcc g++ cc c++ cpp as ld ar ranlib strip nm objdump; do
  if src=$(command -v "$tool"); then ln -s "$src" "$tmp/toolchain/$tool"; fi
done

run() { env -u OCR_PYTHON -u PYTHONPATH PATH="${RUN_PATH:-$tmp/bin}" FONTCONFIG_FILE="$tmp/fonts.conf" FONTCONFIG_PATH="$tmp" "$@"; }

for gone in python3 pdftoppm pdftotext tesseract cmake g++; do
  if run sh -c "command -v $gone" >/dev/null; then echo "check-fresh: $gone still on PATH" >&2; exit 1; fi
done

if [ "${1:-}" = --install ]; then
  echo "check-fresh: npm ci" >&2
  RUN_PATH="$tmp/bin:$tmp/toolchain" run npm ci
  [ -f build/native/Release/ocr_decoder.node ] || { echo "check-fresh: npm ci did not build the native decoder" >&2; exit 1; }
fi

echo "check-fresh: node bin/ocr.js parse fixtures/docs/scanned_page.pdf --stdout" >&2
out=$(run node bin/ocr.js parse fixtures/docs/scanned_page.pdf --stdout)
words=$(printf '%s' "$out" | wc -w)
echo "check-fresh: parse printed $words words" >&2
[ "$words" -ge 10 ] || { echo "check-fresh: parse printed too little:" >&2; printf '%s\n' "$out" >&2; exit 1; }

echo "check-fresh: npm test" >&2
run npm test
