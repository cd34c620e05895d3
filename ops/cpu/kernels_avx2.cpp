// AVX2 kernels (compiled with -mavx2 -mfma -mf16c): 8 lanes, scalar-free tails via a zero-padded copy,
// bf16/f16 weights widened to f32 in registers.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels.h"

namespace ocr {
namespace {

struct V {
  using reg = __m256;
  static constexpr int W = 8;
  static constexpr int TT = 2;  // 8 accumulators + 4 weight vectors + 1 activation fit the 16 ymm registers
  static constexpr int PT = 6;  // tokens per packed-panel block (2 x PT accumulators)
  static constexpr int AR =
      6;  // output rows per blocked-attention P.V pass (12 accumulators + 2 value vectors + 1 weight)
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
  static inline reg mul(reg a, reg b) { return _mm256_mul_ps(a, b); }
  static inline reg sub(reg a, reg b) { return _mm256_sub_ps(a, b); }
  static inline reg div(reg a, reg b) { return _mm256_div_ps(a, b); }
  static inline reg max(reg a, reg b) { return _mm256_max_ps(a, b); }
  static inline float reduce_max(reg a) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static inline reg keep_tail(reg a, int64_t rem) { return _mm256_and_ps(a, _mm256_castsi256_ps(tail_mask(rem))); }
  // Eight horizontal sums at once: out[i] = sum of the lanes of a[i].
  static inline void reduce8_store(const reg* a, float* out) {
    const __m256 t0 = _mm256_hadd_ps(a[0], a[1]), t1 = _mm256_hadd_ps(a[2], a[3]);
    const __m256 t2 = _mm256_hadd_ps(a[4], a[5]), t3 = _mm256_hadd_ps(a[6], a[7]);
    const __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);
    _mm256_storeu_ps(out, _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31)));
  }
  // exp (Cephes expf polynomial, ~1 ulp on the clamped range).
  static inline reg exp(reg x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)), _mm256_set1_ps(88.3f));
    const __m256 fx = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), x);
    __m256 y = _mm256_set1_ps(1.9875691500e-4f);
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.3981999507e-3f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(8.3334519073e-3f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(4.1665795894e-2f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.6666665459e-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(5.0000001201e-1f));
    y = _mm256_add_ps(_mm256_fmadd_ps(y, _mm256_mul_ps(x, x), x), _mm256_set1_ps(1.0f));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
  }
  static inline __m256i tail_mask(int64_t rem) {
    alignas(32) static const int32_t m[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + 8 - rem));
  }
  static inline reg loadx(const float* p, int64_t k) { return _mm256_loadu_ps(p + k); }
  static inline reg loadx_tail(const float* p, int64_t k, int64_t rem) {
    return _mm256_maskload_ps(p + k, tail_mask(rem));
  }
  static inline void storex(float* p, int64_t k, reg v) { _mm256_storeu_ps(p + k, v); }
  static inline void storex_tail(float* p, int64_t k, int64_t rem, reg v) {
    _mm256_maskstore_ps(p + k, tail_mask(rem), v);
  }
  template <DType DT>
  static inline reg widen(__m128i h) {
    if constexpr (DT == DType::F16)
      return _mm256_cvtph_ps(h);
    else
      return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  // Quantised blocks (common.h): W consecutive int8, or the low / high nibbles of W consecutive bytes, as f32; a
  // block's f16 scale or minimum.
  static inline reg q8(const uint8_t* p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
  }
  static inline reg q4(const uint8_t* p, bool high) {
    __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    if (high) b = _mm_srli_epi16(b, 4);
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_and_si128(b, _mm_set1_epi8(15))));
  }
  static inline float f16(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return _cvtsh_ss(h);
  }
  // Decode on quantised weights through the int8 path where this CPU has it (kernels.h); false: not run.
  static inline bool matvec_int8(DType dt, const float* x, int64_t in, const void* w, int64_t o0, int64_t o1,
                                 float* y) {
    if (!int8_decode_avxvnni()) return false;
    matvec_q_int8(dt, x, in, w, o0, o1, y);
    return true;
  }
  template <DType DT>
  static inline reg loadw(const uint8_t* w, int64_t k) {
    if constexpr (DT == DType::F32) {
      return _mm256_loadu_ps(reinterpret_cast<const float*>(w) + k);
    } else if constexpr (DT == DType::F16 || DT == DType::BF16) {
      return widen<DT>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(reinterpret_cast<const uint16_t*>(w) + k)));
    } else if constexpr (DT == DType::Q8_0) {  // k is a multiple of W: a quarter block
      const uint8_t* b = w + static_cast<size_t>(k / kQuantBlock) * kQ8_0BlockBytes;
      return _mm256_mul_ps(_mm256_set1_ps(f16(b)), q8(b + 2 + k % kQuantBlock));
    } else {
      const uint8_t* b = w + static_cast<size_t>(k / kQuantBlock) * kQ4_1BlockBytes;
      return _mm256_fmadd_ps(_mm256_set1_ps(f16(b)), q4(b + 4 + k % 16, k % kQuantBlock >= 16),
                             _mm256_set1_ps(f16(b + 2)));
    }
  }
  template <DType DT>
  static inline reg loadw_tail(const uint8_t* w, int64_t k, int64_t rem) {
    if constexpr (DT == DType::F32) {
      return _mm256_maskload_ps(reinterpret_cast<const float*>(w) + k, tail_mask(rem));
    } else if constexpr (DT == DType::F16 || DT == DType::BF16) {
      // No 16-bit masked load in AVX2: copy the tail (< 8 elements) into a zeroed buffer.
      alignas(16) uint16_t buf[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      std::memcpy(buf, reinterpret_cast<const uint16_t*>(w) + k, static_cast<size_t>(rem) * 2);
      return widen<DT>(_mm_load_si128(reinterpret_cast<const __m128i*>(buf)));
    } else {  // quantised rows are whole blocks, so no caller reaches this; kept exact anyway
      alignas(32) float buf[8] = {};
      for (int64_t i = 0; i < rem; i++) buf[i] = dequant_elem(DT, w, k + i);
      return _mm256_load_ps(buf);
    }
  }
};

// The SIMD bodies, in the order they build on each other (linear, vector, activation, attention): not sorted.
// clang-format off
#include "simd/linear.h"
#include "simd/vector.h"
#include "simd/activation.h"
#include "simd/attention.h"
// clang-format on

constexpr Kernels kAvx2{"avx2",      linear_rows_simd,  dot_simd,     axpy_simd,     store_ref,
                        scores_simd, weighted_sum_simd, softmax_simd, silu_mul_simd, attention_tile_simd};

}  // namespace

const Kernels* kernels_avx2() { return &kAvx2; }

}  // namespace ocr
