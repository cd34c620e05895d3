#!/bin/bash
# Fine-tunes the default model on a lent GPU machine (the device tool), from a pack that ocr_tools.train.pack made
# with the checkpoint's own projection (--basis-from CKPT). Several variants train side by side on the one GPU, each
# a whole cosine cycle of CYCLE minutes from CKPT (train.py --cycle-min), named NAME:LR:PART[:FIRST:FACTOR] in
# $VARIANTS (FIRST:FACTOR: train.py --boost, the pack's documents from the FIRST-th on sampled FACTOR times), PART being
#   decoder  the decoder only (--freeze-encoder: encoder.onnx stays byte-identical)
#   all      the whole model
# OUT gets NAME.pt and NAME.out (its log) of each: the device tool brings back at most 8 files of 16 MiB, so four
# variants at most. Pick among them, or interpolate each with CKPT (ocr_tools.train.interpolate), by the dev
# benchmark on the CPU machine.
# Usage: [VARIANTS="A:4e-4:decoder B:4e-4:all"] scripts/train/device-finetune.sh PACK CKPT OUT [CYCLE_MIN=5] [TOKENS=32000]
set -u
PACK=$1 CKPT=$2 OUT=$3 CYCLE=${4:-5} TOKENS=${5:-32000}
VARIANTS=${VARIANTS:-A:4e-4:decoder B:4e-4:all}
DEVICE=${DEVICE:-cuda} PY=${PYTHON:-python3}   # PYTHON=/usr/bin/python3 on a machine whose python3 lacks torch
[ -f "$PACK" ] && [ -f "$CKPT" ] && mkdir -p "$OUT" || { echo "usage: $0 PACK CKPT OUT [CYCLE_MIN] [TOKENS]" >&2; exit 2; }
export PYTHONPATH=python PYTHONUNBUFFERED=1
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
"$PY" -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available())'
n=$(echo $VARIANTS | wc -w)
WALL=$("$PY" -c "print($CYCLE * 1.15 + 0.5)")   # the cycle counts step time only: stop on the wall clock too
CORES=$(nproc)
WORKERS=${WORKERS:-$(( CORES / n > 1 ? CORES / n - 1 : 1 ))}
BF16=$([ "$DEVICE" = cuda ] && echo --bf16)
for spec in $VARIANTS; do
  IFS=: read -r name lr part first factor <<<"$spec"
  case $part in decoder) extra=--freeze-encoder ;; all) extra= ;; *) echo "$spec: PART is decoder or all" >&2; exit 2 ;; esac
  [ -n "$first" ] && extra="$extra --boost $first:$factor"
  rm -rf "/tmp/ft-$name" && mkdir -p "/tmp/ft-$name" && cp "$CKPT" "/tmp/ft-$name/ckpt.pt"
  "$PY" -m ocr_tools.train.train --pack "$PACK" --device "$DEVICE" $BF16 --workers "$WORKERS" --tokens "$TOKENS" \
    --lr "$lr" --warmup 50 --cycle-min "$CYCLE" --minutes "$WALL" --ckpt-every-min 1000 --val-every-min 1000 \
    --ckpt "/tmp/ft-$name/ckpt.pt" --log "/tmp/ft-$name/log.jsonl" $extra >"$OUT/$name.out" 2>&1 &
done
wait
status=0
for spec in $VARIANTS; do
  name=${spec%%:*}
  echo "== $spec"; tail -n 2 "$OUT/$name.out"
  if grep -q final_val "$OUT/$name.out"; then cp "/tmp/ft-$name/ckpt.pt" "$OUT/$name.pt"; else echo "$name did not finish" >&2; status=1; fi
done
ls -la "$OUT"
exit $status
