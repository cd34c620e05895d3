"""The Python side of ocr: the reference decoder (the native decoder's oracle), the default model's training, the
DeepSeek-OCR checkpoint conversion, and the corpus tools. Run from the repository root with
`PYTHONPATH=python python3 -m ocr_tools.<subpackage>.<module> ...` (python/README.md lists them)."""
