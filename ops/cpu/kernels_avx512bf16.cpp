// AVX-512 BF16 kernel set (opt-in "avx512bf16"): bf16 weights multiplied with _mm512_dpbf16_ps after rounding
// the activations to bf16 — twice the arithmetic per instruction of widening to f32, at the cost of rounding
// the activations (8-bit mantissa). Other dtypes and all other kernels are the exact AVX-512 ones.
#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "kernels.h"

namespace ocr {
namespace {

inline __mmask32 mask32(int64_t rem) { return rem >= 32 ? 0xffffffffu : ((1u << rem) - 1u); }

template <int TT, int RR>
inline void dp_block(const uint16_t* xb, int64_t in, const uint16_t* w, int64_t ldw, float* y, int64_t ldy) {
  __m512 acc[TT][RR];
  for (int t = 0; t < TT; t++)
    for (int r = 0; r < RR; r++) acc[t][r] = _mm512_setzero_ps();
  for (int64_t k = 0; k < in; k += 32) {
    const __mmask32 m = mask32(in - k);
    __m512i wv[RR];
    for (int r = 0; r < RR; r++) wv[r] = _mm512_maskz_loadu_epi16(m, w + r * ldw + k);
    for (int t = 0; t < TT; t++) {
      const __m512i xv = _mm512_maskz_loadu_epi16(m, xb + t * in + k);
      for (int r = 0; r < RR; r++) acc[t][r] = _mm512_dpbf16_ps(acc[t][r], (__m512bh)xv, (__m512bh)wv[r]);
    }
  }
  for (int t = 0; t < TT; t++)
    for (int r = 0; r < RR; r++) y[t * ldy + r] = _mm512_reduce_add_ps(acc[t][r]);
}

template <int TT>
inline void dp_rows(const uint16_t* xb, int64_t in, const uint16_t* w, int64_t rows, float* y, int64_t ldy) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) dp_block<TT, 4>(xb, in, w + r * in, in, y + r, ldy);
  switch (rows - r) {
    case 3:
      dp_block<TT, 3>(xb, in, w + r * in, in, y + r, ldy);
      break;
    case 2:
      dp_block<TT, 2>(xb, in, w + r * in, in, y + r, ldy);
      break;
    case 1:
      dp_block<TT, 1>(xb, in, w + r * in, in, y + r, ldy);
      break;
    default:
      break;
  }
}

}  // namespace

void linear_rows_dpbf16(const float* x, int64_t ldx, int64_t n, int64_t in, DType wdt, const void* w, int64_t o0,
                        int64_t o1, float* y, int64_t ldy) {
  if (wdt != DType::BF16) {
    kernels_avx512()->linear_rows(x, ldx, n, in, wdt, w, o0, o1, y, ldy);
    return;
  }
  // Activations rounded to bf16 once per call (round to nearest even, as _mm512_cvtneps_pbh does).
  static thread_local std::vector<uint16_t> xb;
  xb.resize(static_cast<size_t>(n * in));
  for (int64_t t = 0; t < n; t++) {
    int64_t k = 0;
    for (; k + 16 <= in; k += 16)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(xb.data() + t * in + k),
                          (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(x + t * ldx + k)));
    for (; k < in; k++) xb[t * in + k] = f32_to_bf16(x[t * ldx + k]);
  }
  const uint16_t* wb = static_cast<const uint16_t*>(w) + o0 * in;
  const int64_t rows = o1 - o0;
  constexpr int64_t kTokenChunk = 64, kRowChunk = 64;
  for (int64_t tc = 0; tc < n; tc += kTokenChunk) {
    const int64_t tn = std::min(kTokenChunk, n - tc);
    for (int64_t rc = 0; rc < rows; rc += kRowChunk) {
      const int64_t rn = std::min(kRowChunk, rows - rc);
      int64_t t = 0;
      for (; t + 4 <= tn; t += 4)
        dp_rows<4>(xb.data() + (tc + t) * in, in, wb + rc * in, rn, y + (tc + t) * ldy + rc, ldy);
      for (; t < tn; t++) dp_rows<1>(xb.data() + (tc + t) * in, in, wb + rc * in, rn, y + (tc + t) * ldy + rc, ldy);
    }
  }
}

}  // namespace ocr
