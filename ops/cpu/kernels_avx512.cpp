// AVX-512 kernels (F, BW, VL; compiled with -mavx512f -mavx512bw -mavx512vl -mf16c -mfma): 16 lanes,
// masked tails, bf16/f16 weights widened to f32 in registers so accumulation stays f32.
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
  using reg = __m512;
  static constexpr int W = 16;
  static constexpr int TT = 4;   // tokens per register block (16 accumulators + 4 weight vectors)
  static constexpr int PT = 12;  // tokens per packed-panel block (2 x PT accumulators)
  static constexpr int AR =
      8;  // output rows per blocked-attention P.V pass (16 accumulators + 2 value vectors + 1 weight)
  static inline reg zero() { return _mm512_setzero_ps(); }
  static inline reg set1(float a) { return _mm512_set1_ps(a); }
  static inline reg add(reg a, reg b) { return _mm512_add_ps(a, b); }
  static inline reg fma(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
  static inline float reduce(reg a) { return _mm512_reduce_add_ps(a); }
  static inline reg mul(reg a, reg b) { return _mm512_mul_ps(a, b); }
  static inline reg sub(reg a, reg b) { return _mm512_sub_ps(a, b); }
  static inline reg div(reg a, reg b) { return _mm512_div_ps(a, b); }
  static inline reg max(reg a, reg b) { return _mm512_max_ps(a, b); }
  static inline float reduce_max(reg a) { return _mm512_reduce_max_ps(a); }
  static inline reg keep_tail(reg a, int64_t rem) { return _mm512_maskz_mov_ps(tail_mask(rem), a); }
  // Eight horizontal sums at once: fold each to 8 lanes, then the AVX2 hadd tree.
  static inline void reduce8_store(const reg* a, float* out) {
    __m256 h[8];
    for (int i = 0; i < 8; i++)
      h[i] = _mm256_add_ps(_mm512_castps512_ps256(a[i]),
                           _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a[i]), 1)));
    const __m256 t0 = _mm256_hadd_ps(h[0], h[1]), t1 = _mm256_hadd_ps(h[2], h[3]);
    const __m256 t2 = _mm256_hadd_ps(h[4], h[5]), t3 = _mm256_hadd_ps(h[6], h[7]);
    const __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);
    _mm256_storeu_ps(out, _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31)));
  }
  // exp (Cephes expf polynomial, ~1 ulp on the clamped range).
  static inline reg exp(reg x) {
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.3f)), _mm512_set1_ps(88.3f));
    const __m512 fx = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    x = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), x);
    x = _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), x);
    __m512 y = _mm512_set1_ps(1.9875691500e-4f);
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(1.3981999507e-3f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(8.3334519073e-3f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(4.1665795894e-2f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(1.6666665459e-1f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(5.0000001201e-1f));
    y = _mm512_add_ps(_mm512_fmadd_ps(y, _mm512_mul_ps(x, x), x), _mm512_set1_ps(1.0f));
    const __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(fx), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(y, _mm512_castsi512_ps(e));
  }
  static inline __mmask16 tail_mask(int64_t rem) { return static_cast<__mmask16>((1u << rem) - 1u); }
  static inline reg loadx(const float* p, int64_t k) { return _mm512_loadu_ps(p + k); }
  static inline reg loadx_tail(const float* p, int64_t k, int64_t rem) {
    return _mm512_maskz_loadu_ps(tail_mask(rem), p + k);
  }
  static inline void storex(float* p, int64_t k, reg v) { _mm512_storeu_ps(p + k, v); }
  static inline void storex_tail(float* p, int64_t k, int64_t rem, reg v) {
    _mm512_mask_storeu_ps(p + k, tail_mask(rem), v);
  }
  // Quantised blocks (common.h): W consecutive int8, or the low / high nibbles of W consecutive bytes, as f32; a
  // block's f16 scale or minimum.
  static inline reg q8(const uint8_t* p) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }
  static inline reg q4(const uint8_t* p, bool high) {
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (high) b = _mm_srli_epi16(b, 4);
    return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_and_si128(b, _mm_set1_epi8(15))));
  }
  static inline float f16(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return _cvtsh_ss(h);
  }
  // Decode on quantised weights through the int8 path where this CPU has it (kernels.h); false: not run.
  static inline bool matvec_int8(DType dt, const float* x, int64_t in, const void* w, int64_t o0, int64_t o1,
                                 float* y) {
    if (int8_decode_avx512vnni())
      matvec_q_int8_avx512(dt, x, in, w, o0, o1, y);
    else if (int8_decode_avxvnni())
      matvec_q_int8(dt, x, in, w, o0, o1, y);
    else
      return false;
    return true;
  }
  template <DType DT>
  static inline reg loadw(const uint8_t* w, int64_t k) {
    if constexpr (DT == DType::F32) {
      return _mm512_loadu_ps(reinterpret_cast<const float*>(w) + k);
    } else if constexpr (DT == DType::F16) {
      return _mm512_cvtph_ps(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(reinterpret_cast<const uint16_t*>(w) + k)));
    } else if constexpr (DT == DType::BF16) {
      __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(reinterpret_cast<const uint16_t*>(w) + k));
      return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    } else if constexpr (DT == DType::Q8_0) {  // k is a multiple of W: half a block
      const uint8_t* b = w + static_cast<size_t>(k / kQuantBlock) * kQ8_0BlockBytes;
      return _mm512_mul_ps(_mm512_set1_ps(f16(b)), q8(b + 2 + k % kQuantBlock));
    } else {
      const uint8_t* b = w + static_cast<size_t>(k / kQuantBlock) * kQ4_1BlockBytes;
      return _mm512_fmadd_ps(_mm512_set1_ps(f16(b)), q4(b + 4 + k % 16, k % kQuantBlock >= 16),
                             _mm512_set1_ps(f16(b + 2)));
    }
  }
  template <DType DT>
  static inline reg loadw_tail(const uint8_t* w, int64_t k, int64_t rem) {
    if constexpr (DT == DType::F32) {
      return _mm512_maskz_loadu_ps(tail_mask(rem), reinterpret_cast<const float*>(w) + k);
    } else if constexpr (DT == DType::F16 || DT == DType::BF16) {
      __m256i h = _mm256_maskz_loadu_epi16(tail_mask(rem), reinterpret_cast<const uint16_t*>(w) + k);
      if constexpr (DT == DType::F16)
        return _mm512_cvtph_ps(h);
      else
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    } else {  // quantised rows are whole blocks, so no caller reaches this; kept exact anyway
      alignas(64) float buf[16] = {};
      for (int64_t i = 0; i < rem; i++) buf[i] = dequant_elem(DT, w, k + i);
      return _mm512_load_ps(buf);
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

// Decode (n = 1) on bf16 weights runs the AVX2 set's loop (16-byte loads widened to 8 lanes): on Zen 4 this set's
// own (32-byte loads widened to 16 lanes) streamed the weights from memory at ~3/4 of its rate, in cache as fast,
// whatever the prefetching (row-start burst, spread over the loop, none) or the widening (zero-extend and shift,
// or unpacks against permuted activations). The AVX2 loop's sums are in another order than this set's register
// blocks, as between any two sets; each output still has one fixed order.
void linear_rows_avx512(const float* x, int64_t ldx, int64_t n, int64_t in, DType wdt, const void* w, int64_t o0,
                        int64_t o1, float* y, int64_t ldy) {
  if (n == 1 && wdt == DType::BF16)
    kernels_avx2()->linear_rows(x, ldx, n, in, wdt, w, o0, o1, y, ldy);
  else
    linear_rows_simd(x, ldx, n, in, wdt, w, o0, o1, y, ldy);
}

// Constant-initialised tables: no code compiled for AVX-512 may run before dispatch has checked the CPU.
constexpr Kernels kAvx512{"avx512",    linear_rows_avx512, dot_simd,     axpy_simd,     store_ref,
                          scores_simd, weighted_sum_simd,  softmax_simd, silu_mul_simd, attention_tile_simd};
constexpr Kernels kAvx512Bf16{"avx512bf16", linear_rows_dpbf16, dot_simd,     axpy_simd,     store_ref,
                              scores_simd,  weighted_sum_simd,  softmax_simd, silu_mul_simd, attention_tile_simd};

}  // namespace

const Kernels* kernels_avx512() { return &kAvx512; }
const Kernels* kernels_avx512bf16() { return &kAvx512Bf16; }

}  // namespace ocr
