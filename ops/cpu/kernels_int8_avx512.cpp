// Decode matrix-vector on q8_0 / q4_1 weights with int8 activations, 512-bit AVX512-VNNI (compiled with -mavx512f
// -mavx512bw -mavx512vl -mavx512vnni -mf16c -mfma; run only where the CPU reports AVX512-VNNI): the same arithmetic
// as kernels_int8.cpp (activations rounded once per call to int8 blocks of 32, dx = max|x| / 127, nearest; per
// weight block the exact integer sum of q_w * q_x scaled by d * dx in f32; q4_1 adds m times the block's f32 sum of
// x), but two (q8_0) or four (q4_1) blocks per `vpdpbusd zmm` and no scalar work per block:
// - the scales of 16 blocks come in one gather (q8_0: d; q4_1: d and m) and are multiplied by the activations'
//   block scales as one vector; each block pair (quad) picks its scales out of it with one permute;
// - q8_0's signed weights go in biased by 128 (w ^ 0x80 = w + 128 as u8, one xor instead of the sign trick), and
//   the bias, 128 * d * dx * sum_j q_x[j] per block, is taken off in one vector multiply-add per 16 blocks;
// - q4_1's nibbles of four blocks fill one register, one block per 128-bit lane: the low halves against the
//   activations' x[0..15] of each block, then the high halves against x[16..31] (stored once per call in that order).
// Where the CPU has AVX512-VBMI, q4_1 goes through matvec_q4_1_vbmi instead: two rows at a time, each quad of blocks
// in two loads and two permutes (nibbles, then d and m), its scales per lane from copies of dx and the sums of x laid
// out per lane once per call. One Zen 4 thread (scripts/bench-matvec.mjs ROWS 1280 avx512 q4_1): 39-41 against 30 G
// weights/s at 16384 rows (in L3), 36.9 against 26.7 at 131072 (from memory).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels.h"

namespace ocr {
namespace {

constexpr int64_t kPrefetch = 2048;  // as the float matrix-vector (simd/linear.h)

// The activation row in int8 blocks, padded to whole 16-block groups (zeros: padding adds nothing).
struct Act {
  std::vector<int8_t> q;  // q8_0: natural order; q4_1: per 4 blocks, x[0..15] of each, then x[16..31] of each
  std::vector<float> dx;  // block scales
  std::vector<float> c;   // q8_0: 128 * sum_j q[j] (the bias of the weights); q4_1: the block's f32 sum of x
  // q4_1 with VBMI: per block, its 4 lanes of a quad's register: dx in each, c in the first (zeros in the others)
  std::vector<float> dx4, c4;
};

// A decode pass calls this once per work item (~16 per pass, and once per expert in the MoE's), mostly on the same
// activations (the experts' inputs are copies of one row): the last row rounded on this thread is kept with a copy of
// its f32 values and reused when they match.
template <DType DT>
const Act& quantize_x(const float* x, int64_t in) {
  static thread_local Act a;
  static thread_local std::vector<float> last;
  static thread_local DType last_dt = DType::F32;
  if (last_dt == DT && static_cast<int64_t>(last.size()) == in &&
      std::memcmp(last.data(), x, static_cast<size_t>(in) * sizeof(float)) == 0)
    return a;
  last.assign(x, x + in);
  last_dt = DT;
  const int64_t nb = in / kQuantBlock, padded = (nb + 15) / 16 * 16;
  a.q.assign(static_cast<size_t>(padded * kQuantBlock), 0);
  a.dx.assign(static_cast<size_t>(padded), 0.f);
  a.c.assign(static_cast<size_t>(padded), 0.f);
  for (int64_t b = 0; b < nb; b++) {
    const __m512 v0 = _mm512_loadu_ps(x + b * kQuantBlock), v1 = _mm512_loadu_ps(x + b * kQuantBlock + 16);
    const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
    const float d = amax / 127.f, id = d > 0.f ? 1.f / d : 0.f;
    // _mm512_cvtps_epi32 rounds to nearest even (the MXCSR default), as std::nearbyint does.
    const __m512i i0 = _mm512_cvtps_epi32(_mm512_mul_ps(v0, _mm512_set1_ps(id)));
    const __m512i i1 = _mm512_cvtps_epi32(_mm512_mul_ps(v1, _mm512_set1_ps(id)));
    const __m128i q0 = _mm512_cvtsepi32_epi8(i0), q1 = _mm512_cvtsepi32_epi8(i1);
    int8_t* dst = a.q.data() + b * kQuantBlock;
    if constexpr (DT == DType::Q4_1) dst = a.q.data() + (b & ~int64_t{3}) * kQuantBlock + (b & 3) * 16;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), q0);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (DT == DType::Q4_1 ? 64 : 16)), q1);
    a.dx[static_cast<size_t>(b)] = d;
    if constexpr (DT == DType::Q8_0)
      a.c[static_cast<size_t>(b)] = 128.f * static_cast<float>(_mm512_reduce_add_epi32(
                                                _mm512_add_epi32(_mm512_cvtepi8_epi32(q0), _mm512_cvtepi8_epi32(q1))));
    else
      a.c[static_cast<size_t>(b)] = _mm512_reduce_add_ps(_mm512_add_ps(v0, v1));
  }
  if constexpr (DT == DType::Q4_1) {
    a.dx4.assign(static_cast<size_t>(padded * 4), 0.f);
    a.c4.assign(static_cast<size_t>(padded * 4), 0.f);
    for (int64_t b = 0; b < nb; b++) {
      for (int k = 0; k < 4; k++) a.dx4[static_cast<size_t>(4 * b + k)] = a.dx[static_cast<size_t>(b)];
      a.c4[static_cast<size_t>(4 * b)] = a.c[static_cast<size_t>(b)];
    }
  }
  return a;
}

// q8_0's permute indices: block pair p of a group takes scales 2p and 2p + 1 into the lanes its integer sums land in.
alignas(64) constexpr int32_t kPairIdx[8][16] = {{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1},
                                                 {2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3},
                                                 {4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5},
                                                 {6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7},
                                                 {8, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9},
                                                 {10, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 11, 11, 11},
                                                 {12, 12, 12, 12, 12, 12, 12, 12, 13, 13, 13, 13, 13, 13, 13, 13},
                                                 {14, 14, 14, 14, 14, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15}};
// q4_1 takes four blocks at a time: quad p of a group takes scales 4p .. 4p + 3, four lanes each.
alignas(64) constexpr int32_t kQuadIdx[4][16] = {{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3},
                                                 {4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7},
                                                 {8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 11},
                                                 {12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15}};

// q4_1: the nibble bytes of `n` (1..4) consecutive blocks, one block per 128-bit lane (zeros past n).
inline __m512i quad_nibbles(const uint8_t* blk, int64_t n) {
  if (n == 4) {
    __m512i z = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 4)));
    z = _mm512_inserti32x4(z, _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + kQ4_1BlockBytes + 4)), 1);
    z = _mm512_inserti32x4(z, _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 2 * kQ4_1BlockBytes + 4)), 2);
    return _mm512_inserti32x4(z, _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 3 * kQ4_1BlockBytes + 4)), 3);
  }
  alignas(64) uint8_t buf[64] = {};
  for (int64_t j = 0; j < n; j++) std::memcpy(buf + 16 * j, blk + j * kQ4_1BlockBytes + 4, 16);
  return _mm512_load_si512(buf);
}

// q8_0: the weights of blocks b0 and b0 + 1 (absent when !two: zeros) as u8, biased by 128.
inline __m512i pair_weights(const uint8_t* blk, bool two) {
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 2));
  const __m256i hi = two ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + kQ8_0BlockBytes + 2))
                         : _mm256_set1_epi8(static_cast<char>(0x80));
  return _mm512_xor_si512(_mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1),
                          _mm512_set1_epi8(static_cast<char>(0x80)));
}

template <DType DT>
void matvec(const float* x, int64_t in, const uint8_t* w, int64_t o0, int64_t o1, float* y) {
  constexpr int64_t BB = DT == DType::Q8_0 ? kQ8_0BlockBytes : kQ4_1BlockBytes;
  const int64_t nb = in / kQuantBlock;
  const Act& a = quantize_x<DT>(x, in);
  const size_t row_bytes = static_cast<size_t>(nb * BB);
  const __m512i offsets = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                             _mm512_set1_epi32(static_cast<int>(BB)));
  const uintptr_t end = reinterpret_cast<uintptr_t>(w + static_cast<size_t>(o1) * row_bytes);
  uintptr_t next = (reinterpret_cast<uintptr_t>(w + static_cast<size_t>(o0) * row_bytes) + kPrefetch) & ~uintptr_t{63};
  for (int64_t o = o0; o < o1; o++) {
    const uint8_t* row = w + static_cast<size_t>(o) * row_bytes;
    const uintptr_t upto = std::min(end, reinterpret_cast<uintptr_t>(row) + row_bytes + kPrefetch);
    for (; next < upto; next += 64) _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_NTA);
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps(), corr = _mm512_setzero_ps();
    for (int64_t g = 0; g < nb; g += 16) {
      const int64_t blocks = std::min<int64_t>(16, nb - g);
      const __mmask16 m = static_cast<__mmask16>((1u << blocks) - 1u);
      const uint8_t* gb = row + g * BB;
      // d (and q4_1's m) of the group's blocks: the first 4 bytes of each.
      const __m512i head = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, offsets, gb, 1);
      const __m512 s = _mm512_mul_ps(_mm512_cvtph_ps(_mm512_cvtepi32_epi16(head)), _mm512_loadu_ps(a.dx.data() + g));
      if constexpr (DT == DType::Q8_0)
        corr = _mm512_fmadd_ps(s, _mm512_loadu_ps(a.c.data() + g), corr);
      else
        corr = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(head, 16))),
                               _mm512_loadu_ps(a.c.data() + g), corr);
      const int8_t* xg = a.q.data() + g * kQuantBlock;
      if constexpr (DT == DType::Q4_1) {
        // Four blocks per pass: their low nibbles (q[0..15]) against x[0..15], then the high ones (q[16..31])
        // against x[16..31] into the same four lanes per block.
        const __m512i nib = _mm512_set1_epi8(15);
        for (int64_t p = 0; 4 * p < blocks; p++) {
          const __m512i z = quad_nibbles(gb + 4 * p * BB, std::min<int64_t>(4, blocks - 4 * p));
          const int8_t* xq = xg + 4 * p * kQuantBlock;
          __m512i dot = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_and_si512(z, nib), _mm512_loadu_si512(xq));
          dot = _mm512_dpbusd_epi32(dot, _mm512_and_si512(_mm512_srli_epi16(z, 4), nib), _mm512_loadu_si512(xq + 64));
          const __m512 sc = _mm512_permutexvar_ps(_mm512_load_si512(kQuadIdx[p]), s);
          if (p & 1)
            acc1 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), sc, acc1);
          else
            acc0 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), sc, acc0);
        }
      } else {
        // Two blocks per pass, one per 256-bit half.
        for (int64_t p = 0; 2 * p < blocks; p++) {
          const __m512i wv = pair_weights(gb + 2 * p * BB, 2 * p + 1 < blocks);
          const __m512i xv = _mm512_loadu_si512(xg + 2 * p * kQuantBlock);
          const __m512 sum = _mm512_cvtepi32_ps(_mm512_dpbusd_epi32(_mm512_setzero_si512(), wv, xv));
          const __m512 sc = _mm512_permutexvar_ps(_mm512_load_si512(kPairIdx[p]), s);
          if (p & 1)
            acc1 = _mm512_fmadd_ps(sum, sc, acc1);
          else
            acc0 = _mm512_fmadd_ps(sum, sc, acc0);
        }
      }
    }
    const float dot = _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1)), c = _mm512_reduce_add_ps(corr);
    y[o - o0] = DT == DType::Q8_0 ? dot - c : dot + c;
  }
}

// q4_1 with AVX512-VBMI: a quad's four blocks (80 bytes) come in as two loads, and one byte permute puts their nibble
// bytes one block per 128-bit lane and one word permute their d and m, one block per four lanes: no gather, no
// inserts, no scale permute.
alignas(64) constexpr uint8_t kNibbleIdx[64] = {4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                                                24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
                                                44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59,
                                                64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79};
// words: d of block k / 4 in lanes 0..15, m of block k / 4 in lanes 16..31 (block j's d is word 10j, m word 10j + 1)
alignas(64) constexpr uint16_t kScaleIdx[32] = {0, 0, 0, 0, 10, 10, 10, 10, 20, 20, 20, 20, 30, 30, 30, 30,
                                                1, 1, 1, 1, 11, 11, 11, 11, 21, 21, 21, 21, 31, 31, 31, 31};

// A quad's nibble bytes (one block per 128-bit lane) and its blocks' d (lanes 0..15) and m (16..31) as f16 words.
__attribute__((target("avx512vbmi"))) inline void quad_vbmi(const uint8_t* blk, int64_t n, __m512i nib_idx,
                                                            __m512i sc_idx, __m512i& z, __m512i& sc) {
  __m512i lo, hi;
  if (n == 4) {
    lo = _mm512_loadu_si512(blk);
    hi = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 64)));
  } else {
    // zeros past the blocks (a masked load never touches the bytes it leaves out)
    lo = _mm512_maskz_loadu_epi8(static_cast<__mmask64>((uint64_t{1} << (n * kQ4_1BlockBytes)) - 1), blk);
    hi = _mm512_setzero_si512();
  }
  z = _mm512_permutex2var_epi8(lo, nib_idx, hi);
  sc = _mm512_permutex2var_epi16(lo, sc_idx, hi);
}

// One quad of one row: its integer dot against the activations, scaled, into acc; m times the blocks' x sums into corr.
__attribute__((target("avx512vbmi"))) inline void quad_accumulate(__m512i z, __m512i sc, __m512i x0, __m512i x1,
                                                                  __m512 dx, __m512 c, __m512& acc, __m512& corr) {
  const __m512i nib = _mm512_set1_epi8(15);
  __m512i dot = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_and_si512(z, nib), x0);
  dot = _mm512_dpbusd_epi32(dot, _mm512_and_si512(_mm512_srli_epi16(z, 4), nib), x1);
  const __m512 d = _mm512_cvtph_ps(_mm512_castsi512_si256(sc)), m = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(sc, 1));
  acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(d, dx), acc);
  corr = _mm512_fmadd_ps(m, c, corr);
}

__attribute__((target("avx512vbmi"))) void matvec_q4_1_vbmi(const float* x, int64_t in, const uint8_t* w, int64_t o0,
                                                            int64_t o1, float* y) {
  constexpr int64_t BB = kQ4_1BlockBytes;
  const int64_t nb = in / kQuantBlock;
  const Act& a = quantize_x<DType::Q4_1>(x, in);
  const size_t row_bytes = static_cast<size_t>(nb * BB);
  const __m512i nib_idx = _mm512_load_si512(kNibbleIdx), sc_idx = _mm512_load_si512(kScaleIdx);
  const uintptr_t end = reinterpret_cast<uintptr_t>(w + static_cast<size_t>(o1) * row_bytes);
  uintptr_t next = (reinterpret_cast<uintptr_t>(w + static_cast<size_t>(o0) * row_bytes) + kPrefetch) & ~uintptr_t{63};
  // two rows at a time share the activations' loads
  int64_t o = o0;
  for (; o + 1 < o1; o += 2) {
    const uint8_t* r0 = w + static_cast<size_t>(o) * row_bytes;
    const uint8_t* r1 = r0 + row_bytes;
    const uintptr_t upto = std::min(end, reinterpret_cast<uintptr_t>(r1) + row_bytes + kPrefetch);
    for (; next < upto; next += 64) _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_NTA);
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps(), corr0 = _mm512_setzero_ps(),
           corr1 = _mm512_setzero_ps();
    for (int64_t p = 0; 4 * p < nb; p++) {
      const int64_t n = std::min<int64_t>(4, nb - 4 * p);
      __m512i z0, s0, z1, s1;
      quad_vbmi(r0 + 4 * p * BB, n, nib_idx, sc_idx, z0, s0);
      quad_vbmi(r1 + 4 * p * BB, n, nib_idx, sc_idx, z1, s1);
      const int8_t* xq = a.q.data() + 4 * p * kQuantBlock;
      const __m512i x0 = _mm512_loadu_si512(xq), x1 = _mm512_loadu_si512(xq + 64);
      const __m512 dx = _mm512_loadu_ps(a.dx4.data() + 16 * p), c = _mm512_loadu_ps(a.c4.data() + 16 * p);
      quad_accumulate(z0, s0, x0, x1, dx, c, acc0, corr0);
      quad_accumulate(z1, s1, x0, x1, dx, c, acc1, corr1);
    }
    y[o - o0] = _mm512_reduce_add_ps(_mm512_add_ps(acc0, corr0));
    y[o + 1 - o0] = _mm512_reduce_add_ps(_mm512_add_ps(acc1, corr1));
  }
  for (; o < o1; o++) {
    const uint8_t* r0 = w + static_cast<size_t>(o) * row_bytes;
    const uintptr_t upto = std::min(end, reinterpret_cast<uintptr_t>(r0) + row_bytes + kPrefetch);
    for (; next < upto; next += 64) _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_NTA);
    __m512 acc0 = _mm512_setzero_ps(), corr0 = _mm512_setzero_ps();
    for (int64_t p = 0; 4 * p < nb; p++) {
      __m512i z0, s0;
      quad_vbmi(r0 + 4 * p * BB, std::min<int64_t>(4, nb - 4 * p), nib_idx, sc_idx, z0, s0);
      const int8_t* xq = a.q.data() + 4 * p * kQuantBlock;
      quad_accumulate(z0, s0, _mm512_loadu_si512(xq), _mm512_loadu_si512(xq + 64),
                      _mm512_loadu_ps(a.dx4.data() + 16 * p), _mm512_loadu_ps(a.c4.data() + 16 * p), acc0, corr0);
    }
    y[o - o0] = _mm512_reduce_add_ps(_mm512_add_ps(acc0, corr0));
  }
}

}  // namespace

void matvec_q_int8_avx512(DType wdt, const float* x, int64_t in, const void* w, int64_t o0, int64_t o1, float* y) {
  if (wdt == DType::Q8_0)
    matvec<DType::Q8_0>(x, in, static_cast<const uint8_t*>(w), o0, o1, y);
  else if (int8_q4_vbmi())
    matvec_q4_1_vbmi(x, in, static_cast<const uint8_t*>(w), o0, o1, y);
  else
    matvec<DType::Q4_1>(x, in, static_cast<const uint8_t*>(w), o0, o1, y);
}

}  // namespace ocr
