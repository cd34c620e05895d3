// AVX-512 kernels (F, BW, VL; compiled with -mavx512f -mavx512bw -mavx512vl -mf16c -mfma): 16 lanes,
// masked tails, bf16/f16 weights widened to f32 in registers so accumulation stays f32.
#include <immintrin.h>

#include <algorithm>

#include "kernels.h"

namespace ocr {
namespace {

struct V {
  using reg = __m512;
  static constexpr int W = 16;
  static constexpr int TT = 4;  // tokens per register block (16 accumulators + 4 weight vectors)
  static constexpr int PT = 12;  // tokens per packed-panel block (2 x PT accumulators)
  static inline reg zero() { return _mm512_setzero_ps(); }
  static inline reg set1(float a) { return _mm512_set1_ps(a); }
  static inline reg add(reg a, reg b) { return _mm512_add_ps(a, b); }
  static inline reg fma(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
  static inline float reduce(reg a) { return _mm512_reduce_add_ps(a); }
  static inline __mmask16 tail_mask(int64_t rem) { return static_cast<__mmask16>((1u << rem) - 1u); }
  static inline reg loadx(const float* p, int64_t k) { return _mm512_loadu_ps(p + k); }
  static inline reg loadx_tail(const float* p, int64_t k, int64_t rem) { return _mm512_maskz_loadu_ps(tail_mask(rem), p + k); }
  static inline void storex(float* p, int64_t k, reg v) { _mm512_storeu_ps(p + k, v); }
  static inline void storex_tail(float* p, int64_t k, int64_t rem, reg v) { _mm512_mask_storeu_ps(p + k, tail_mask(rem), v); }
  template <DType DT>
  static inline reg loadw(const uint8_t* w, int64_t k) {
    if constexpr (DT == DType::F32) {
      return _mm512_loadu_ps(reinterpret_cast<const float*>(w) + k);
    } else if constexpr (DT == DType::F16) {
      return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(reinterpret_cast<const uint16_t*>(w) + k)));
    } else {
      __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(reinterpret_cast<const uint16_t*>(w) + k));
      return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
  }
  template <DType DT>
  static inline reg loadw_tail(const uint8_t* w, int64_t k, int64_t rem) {
    if constexpr (DT == DType::F32) {
      return _mm512_maskz_loadu_ps(tail_mask(rem), reinterpret_cast<const float*>(w) + k);
    } else {
      __m256i h = _mm256_maskz_loadu_epi16(tail_mask(rem), reinterpret_cast<const uint16_t*>(w) + k);
      if constexpr (DT == DType::F16) return _mm512_cvtph_ps(h);
      else return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
  }
};

#include "simd_impl.h"

// Constant-initialised tables: no code compiled for AVX-512 may run before dispatch has checked the CPU.
constexpr Kernels kAvx512{"avx512", linear_rows_simd, dot_simd, axpy_simd, store_ref, scores_simd, weighted_sum_simd, sum_simd};
constexpr Kernels kAvx512Bf16{"avx512bf16", linear_rows_dpbf16, dot_simd, axpy_simd, store_ref, scores_simd, weighted_sum_simd, sum_simd};

}  // namespace

const Kernels* kernels_avx512() { return &kAvx512; }
const Kernels* kernels_avx512bf16() { return &kAvx512Bf16; }

}  // namespace ocr
