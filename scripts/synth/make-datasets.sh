#!/bin/sh
# Builds the synthetic data sets outside git: corpus, then train/val/test/test-unseen PDFs and their page images.
# Usage: scripts/synth/make-datasets.sh DATA_DIR [TRAIN_DOCS] [LATEX_DOCS]   (defaults: $OCR_DATA/synth when OCR_DATA is
# set, 600, 240)
# The LATEX_DOCS training documents after the first TRAIN_DOCS look like LaTeX manuals (60 %) and scans (30 %),
# rendered at the full 150 DPI.
set -e
DATA=${1:-${OCR_DATA:+$OCR_DATA/synth}}
[ -n "$DATA" ] || { echo "make-datasets.sh: DATA_DIR is required (or set OCR_DATA: it is then \$OCR_DATA/synth)" >&2; exit 2; }
TRAIN=${2:-600}
LATEX=${3:-240}
cd "$(dirname "$0")/../.."
[ -f "$DATA/corpus/en.jsonl" ] || PYTHONPATH=python /usr/bin/python3 -m ocr_tools.synth.corpus --out "$DATA/corpus"
[ -f dist/input/index.js ] || npm run build
gen() { # name split fonts seed count
  node scripts/synth/generate.mjs --corpus "$DATA/corpus" --out "$DATA/$1" --split "$2" --fonts "$3" --seed "$4" --count "$5"
  node scripts/synth/rasterise.mjs "$DATA/$1"
}
gen val val seen 2 40
gen test test seen 3 60
gen test-unseen test unseen 4 40
gen train train seen 1 "$TRAIN"
node scripts/synth/generate.mjs --corpus "$DATA/corpus" --out "$DATA/train" --split train --fonts seen --seed 1 --start "$TRAIN" --count "$LATEX" --latex 0.6
node scripts/synth/rasterise.mjs "$DATA/train" --fit 1275x1754 --degrade 0.3 --seed 1
