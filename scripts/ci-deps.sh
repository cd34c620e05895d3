#!/usr/bin/env bash
# Installs the Debian packages that tests and scripts need (idempotent; skips apt when all are present).
set -euo pipefail
pkgs=(python3-torch python3-onnx python3-numpy python3-pytest libopenblas0-pthread poppler-utils tesseract-ocr
      fonts-dejavu-core fonts-dejavu-extra fonts-liberation2 fonts-noto-core fonts-cmu fonts-lmodern fonts-texgyre
      cmake g++ clang-format black)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
