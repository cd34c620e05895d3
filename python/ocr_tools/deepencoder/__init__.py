"""DeepSeek-OCR's vision encoder in PyTorch and its ONNX export (`ocr models convert` runs export_onnx)."""
