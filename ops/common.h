// Shared vocabulary of the native decoder core: dtypes, tensor views, element conversions, the error type.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace ocr {

// Element types, and two block-quantised weight formats (llama.cpp's block_q8_0 and block_q4_1, byte for byte): a row
// of `cols` weights (cols a multiple of kQuantBlock) is cols / 32 blocks, each of 32 consecutive weights.
//   Q8_0: { f16 d; int8 q[32] }           w[j] = d * q[j]                                   34 bytes per block
//   Q4_1: { f16 d; f16 m; uint8 qs[16] }   w[j] = d * q[j] + m, q[j] in 0..15: q[j] = qs[j] & 15 and
//                                          q[j + 16] = qs[j] >> 4 for j < 16                20 bytes per block
// Quantised types are weight-matrix only (linear_rows); activations, norms, embeddings and the K/V cache are float.
enum class DType : int { F32 = 0, F16 = 1, BF16 = 2, Q8_0 = 3, Q4_1 = 4 };

constexpr int64_t kQuantBlock = 32;
constexpr size_t kQ8_0BlockBytes = 34, kQ4_1BlockBytes = 20;

constexpr bool dtype_is_quantized(DType t) { return t == DType::Q8_0 || t == DType::Q4_1; }
// Bytes per element of the element types (not meaningful for the quantised ones: use dtype_row_bytes).
inline size_t dtype_size(DType t) { return t == DType::F32 ? 4 : 2; }
// Bytes of one row of `cols` elements (for quantised types cols must be a multiple of kQuantBlock).
inline size_t dtype_row_bytes(DType t, int64_t cols) {
  if (t == DType::Q8_0) return static_cast<size_t>(cols / kQuantBlock) * kQ8_0BlockBytes;
  if (t == DType::Q4_1) return static_cast<size_t>(cols / kQuantBlock) * kQ4_1BlockBytes;
  return static_cast<size_t>(cols) * dtype_size(t);
}
inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32:
      return "f32";
    case DType::F16:
      return "f16";
    case DType::BF16:
      return "bf16";
    case DType::Q8_0:
      return "q8_0";
    default:
      return "q4_1";
  }
}

// Errors that cross to JavaScript as data: a stable code plus a message naming what is wrong.
struct DecoderError : std::runtime_error {
  std::string code;
  DecoderError(std::string c, const std::string& msg) : std::runtime_error(msg), code(std::move(c)) {}
};

// A read-only view of a weight tensor inside a memory-mapped file.
struct TensorView {
  DType dtype = DType::F32;
  const void* data = nullptr;
  std::vector<int64_t> shape;
  int64_t numel() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  int64_t rows() const { return shape.empty() ? 0 : shape[0]; }
  int64_t cols() const { return shape.size() < 2 ? 1 : shape[1]; }
  const uint8_t* row_ptr(int64_t r) const {
    return static_cast<const uint8_t*>(data) + static_cast<size_t>(r) * dtype_row_bytes(dtype, cols());
  }
};

inline float bf16_to_f32(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Round to nearest even, as torch does; NaN stays NaN.
inline uint16_t f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);

// Element k of a quantised row (the reference dequantisation: d * q, or d * q + m rounded once).
inline float dequant_elem(DType t, const uint8_t* row, int64_t k) {
  if (t == DType::Q8_0) {
    const uint8_t* b = row + static_cast<size_t>(k / kQuantBlock) * kQ8_0BlockBytes;
    uint16_t d;
    std::memcpy(&d, b, 2);
    return f16_to_f32(d) * static_cast<float>(static_cast<int8_t>(b[2 + k % kQuantBlock]));
  }
  const uint8_t* b = row + static_cast<size_t>(k / kQuantBlock) * kQ4_1BlockBytes;
  uint16_t d, m;
  std::memcpy(&d, b, 2);
  std::memcpy(&m, b + 2, 2);
  const int64_t j = k % kQuantBlock;
  const int q = j < 16 ? (b[4 + j] & 15) : (b[4 + j - 16] >> 4);
  return f16_to_f32(d) * static_cast<float>(q) + f16_to_f32(m);
}

}  // namespace ocr
