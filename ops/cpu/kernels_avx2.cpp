// AVX2 kernels (compiled with -mavx2 -mfma -mf16c): 8 lanes, scalar-free tails via a zero-padded copy,
// bf16/f16 weights widened to f32 in registers.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels.h"

namespace ocr {
namespace {

struct V {
  using reg = __m256;
  static constexpr int W = 8;
  static constexpr int TT = 2;  // 8 accumulators + 4 weight vectors + 1 activation fit the 16 ymm registers
  static constexpr int PT = 6;  // tokens per packed-panel block (2 x PT accumulators)
  static inline reg zero() { return _mm256_setzero_ps(); }
  static inline reg set1(float a) { return _mm256_set1_ps(a); }
  static inline reg add(reg a, reg b) { return _mm256_add_ps(a, b); }
  static inline reg fma(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
  static inline float reduce(reg a) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static inline __m256i tail_mask(int64_t rem) {
    alignas(32) static const int32_t m[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + 8 - rem));
  }
  static inline reg loadx(const float* p, int64_t k) { return _mm256_loadu_ps(p + k); }
  static inline reg loadx_tail(const float* p, int64_t k, int64_t rem) { return _mm256_maskload_ps(p + k, tail_mask(rem)); }
  static inline void storex(float* p, int64_t k, reg v) { _mm256_storeu_ps(p + k, v); }
  static inline void storex_tail(float* p, int64_t k, int64_t rem, reg v) { _mm256_maskstore_ps(p + k, tail_mask(rem), v); }
  template <DType DT>
  static inline reg widen(__m128i h) {
    if constexpr (DT == DType::F16) return _mm256_cvtph_ps(h);
    else return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  template <DType DT>
  static inline reg loadw(const uint8_t* w, int64_t k) {
    if constexpr (DT == DType::F32) return _mm256_loadu_ps(reinterpret_cast<const float*>(w) + k);
    else return widen<DT>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(reinterpret_cast<const uint16_t*>(w) + k)));
  }
  template <DType DT>
  static inline reg loadw_tail(const uint8_t* w, int64_t k, int64_t rem) {
    if constexpr (DT == DType::F32) {
      return _mm256_maskload_ps(reinterpret_cast<const float*>(w) + k, tail_mask(rem));
    } else {
      // No 16-bit masked load in AVX2: copy the tail (< 8 elements) into a zeroed buffer.
      alignas(16) uint16_t buf[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      std::memcpy(buf, reinterpret_cast<const uint16_t*>(w) + k, static_cast<size_t>(rem) * 2);
      return widen<DT>(_mm_load_si128(reinterpret_cast<const __m128i*>(buf)));
    }
  }
};

#include "simd_impl.h"

constexpr Kernels kAvx2{"avx2", linear_rows_simd, dot_simd, axpy_simd, store_ref, scores_simd, weighted_sum_simd, sum_simd};

}  // namespace

const Kernels* kernels_avx2() { return &kAvx2; }

}  // namespace ocr
