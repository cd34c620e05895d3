"""The frozen PyTorch reference of the DeepSeek-OCR decoder family: the oracle the native decoder is tested against
(fixtures/tiny-model*/golden, focal and R-SWA cases). The training model imports it and never changes it: a change
here moves the native decoder's test oracle, and python/tests/test_reference_golden.py fails until the goldens are
remade on purpose (`python3 -m ocr_tools.reference.tiny_model`). Nothing in this package imports the rest of ocr_tools
(ocr_tools.paths aside)."""
