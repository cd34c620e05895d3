// Decode matrix-vector on block-quantised weights with int8 activations (compiled with -mavx2 -mfma -mf16c -mavxvnni,
// run only where the CPU reports AVX-VNNI), as llama.cpp multiplies its q8_0 / q4_1 blocks: the activation row is
// rounded once per call to int8 blocks of 32 (scale dx = max|x| / 127, nearest), then per weight block one
// `vpdpbusd` gives the exact integer sum of q_w * q_x, scaled by d * dx in f32; q4_1 adds m times the block's exact
// f32 sum of x. Costs about half the CPU per weight of widening to f32 (the AVX2 float path), at the price of the
// activations' rounding: each output is within sum_b (dx_b / 2) sum_j |w_j| of the f32 result (test/ops).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels.h"

namespace ocr {
namespace {

constexpr int64_t kPrefetch = 2048;  // as the float matrix-vector (simd/linear.h)

inline float f16(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
}

template <DType DT>
void matvec(const float* x, int64_t in, const uint8_t* w, int64_t o0, int64_t o1, float* y) {
  const int64_t nb = in / kQuantBlock;
  thread_local std::vector<int8_t> qx;
  thread_local std::vector<float> dx, xs;
  qx.resize(static_cast<size_t>(in));
  dx.resize(static_cast<size_t>(nb));
  xs.resize(static_cast<size_t>(nb));
  for (int64_t b = 0; b < nb; b++) {
    const float* xb = x + b * kQuantBlock;
    float amax = 0.f, sum = 0.f;
    for (int64_t j = 0; j < kQuantBlock; j++) {
      amax = std::max(amax, std::fabs(xb[j]));
      sum += xb[j];
    }
    const float d = amax / 127.f, id = d > 0.f ? 1.f / d : 0.f;
    for (int64_t j = 0; j < kQuantBlock; j++)
      qx[static_cast<size_t>(b * kQuantBlock + j)] = static_cast<int8_t>(std::nearbyint(xb[j] * id));
    dx[static_cast<size_t>(b)] = d;
    xs[static_cast<size_t>(b)] = sum;
  }
  constexpr size_t BB = DT == DType::Q8_0 ? kQ8_0BlockBytes : kQ4_1BlockBytes;
  const size_t row_bytes = static_cast<size_t>(nb) * BB;
  const uintptr_t end = reinterpret_cast<uintptr_t>(w + static_cast<size_t>(o1) * row_bytes);
  uintptr_t next = (reinterpret_cast<uintptr_t>(w + static_cast<size_t>(o0) * row_bytes) + kPrefetch) & ~uintptr_t{63};
  const __m128i nibble = _mm_set1_epi8(15);
  for (int64_t o = o0; o < o1; o++) {
    const uint8_t* row = w + static_cast<size_t>(o) * row_bytes;
    const uintptr_t upto = std::min(end, reinterpret_cast<uintptr_t>(row) + row_bytes + kPrefetch);
    for (; next < upto; next += 64) _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_NTA);
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    float macc = 0.f;
    for (int64_t b = 0; b < nb; b++) {
      const uint8_t* blk = row + static_cast<size_t>(b) * BB;
      const __m256i y8 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qx.data() + b * kQuantBlock));
      __m256i s;
      if constexpr (DT == DType::Q8_0) {  // u8 x s8 dot: |q_w| times q_x with q_w's sign
        const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 2));
        s = _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), _mm256_sign_epi8(q, q), _mm256_sign_epi8(y8, q));
      } else {  // nibbles are already unsigned: q[j] low nibbles of bytes 0..15, q[j + 16] their high nibbles
        const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 4));
        const __m256i q = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(raw, 4), nibble), _mm_and_si128(raw, nibble));
        s = _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), q, y8);
        macc += f16(blk + 2) * xs[static_cast<size_t>(b)];
      }
      const __m256 scale = _mm256_set1_ps(f16(blk) * dx[static_cast<size_t>(b)]);
      if (b & 1)
        a1 = _mm256_fmadd_ps(scale, _mm256_cvtepi32_ps(s), a1);
      else
        a0 = _mm256_fmadd_ps(scale, _mm256_cvtepi32_ps(s), a0);
    }
    const __m256 a = _mm256_add_ps(a0, a1);
    __m128 r = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    y[o - o0] = _mm_cvtss_f32(r) + macc;
  }
}

}  // namespace

void matvec_q_int8(DType wdt, const float* x, int64_t in, const void* w, int64_t o0, int64_t o1, float* y) {
  if (wdt == DType::Q8_0)
    matvec<DType::Q8_0>(x, in, static_cast<const uint8_t*>(w), o0, o1, y);
  else
    matvec<DType::Q4_1>(x, in, static_cast<const uint8_t*>(w), o0, o1, y);
}

}  // namespace ocr
