"""Reference views of one image, computed the way the DeepSeek-OCR code does with PIL (ImageOps.pad, resize, tile crop),
for check_preprocess.mjs to compare with our sharp-based preprocessing.

  PYTHONPATH=python /usr/bin/python3 -m ocr_tools.deepencoder.reference_preprocess IMAGE MODE OUT_DIR
"""
import json
import os
import sys

import numpy as np
from PIL import Image, ImageOps

SIZES = {"tiny": 512, "small": 640, "base": 1024, "large": 1280}


def closest_grid(width, height, tile=640, lo=2, hi=9):
    aspect = width / height
    grids = sorted(
        {(i, j) for n in range(lo, hi + 1) for i in range(1, n + 1) for j in range(1, n + 1) if lo <= i * j <= hi},
        key=lambda g: g[0] * g[1],
    )
    best, best_diff = (1, 1), float("inf")
    for g in grids:
        diff = abs(aspect - g[0] / g[1])
        if diff < best_diff:
            best, best_diff = g, diff
        elif diff == best_diff and width * height > 0.5 * tile * tile * g[0] * g[1]:
            best = g
    return best


def normalise(img):
    a = np.asarray(img.convert("RGB"), dtype=np.float32) / 255.0
    return ((a - 0.5) / 0.5).transpose(2, 0, 1).copy()


def main():
    path, mode, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    img = Image.open(path).convert("RGB")
    info = {"mode": mode, "width": img.width, "height": img.height}
    if mode == "gundam":
        views = [normalise(ImageOps.pad(img, (1024, 1024), color=(127, 127, 127)))]
        if img.width <= 640 and img.height <= 640:
            grid = (1, 1)
        else:
            grid = closest_grid(img.width, img.height)
            resized = img.resize((640 * grid[0], 640 * grid[1]))
            for k in range(grid[0] * grid[1]):
                x, y = (k % grid[0]) * 640, (k // grid[0]) * 640
                views.append(normalise(resized.crop((x, y, x + 640, y + 640))))
        info["grid"] = list(grid)
    else:
        size = SIZES[mode]
        view = img.resize((size, size)) if size <= 640 else img
        views = [normalise(ImageOps.pad(view, (size, size), color=(127, 127, 127)))]
    for k, v in enumerate(views):
        v.astype("<f4").tofile(os.path.join(out, f"view-{k}.f32"))
    info["views"] = [list(v.shape) for v in views]
    with open(os.path.join(out, "views.json"), "w") as f:
        json.dump(info, f)


if __name__ == "__main__":
    main()
