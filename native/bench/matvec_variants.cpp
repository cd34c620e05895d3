// Standalone probe (not built by CMake, not a test) behind the AVX-512 set's bf16 decode choice (kernels_avx512.cpp):
// single-row-stream bf16 matrix-vector loops streaming a [rows, in] matrix from memory, best of 15 x calls, G
// weights/s.
//   A: AVX-512, 32-byte loads zero-extended to 16 lanes and shifted, a row's prefetches (NTA, PF bytes ahead) at its
//      start (the AVX-512 set's loop before)        A0: A without prefetches
//   D: AVX2, 16-byte loads to 8 lanes, same prefetch (the AVX2 set's loop)   D0: D without prefetches
//   E: A with the prefetches spread over the loop    F: E with unpacks against permuted activations
//   B0: F's widening without prefetches
// Build and run: g++ -O3 -mavx512f -mavx512bw -mavx512vl -mfma -mf16c -mavx2 -o /tmp/mvv
//   native/bench/matvec_variants.cpp -lpthread && /tmp/mvv 16384 1280   (T=2: two threads, half the rows each)
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
static int PF = 2048;
static inline float red512(__m512 a) { return _mm512_reduce_add_ps(a); }
static inline __m512 w512(const uint16_t* w) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)w)), 16));
}
template <int HINT>
static inline void pf(uintptr_t& next, uintptr_t upto) {
  for (; next < upto; next += 64) _mm_prefetch((const char*)next, (_mm_hint)HINT);
}
// A: current avx512
template <int HINT>
void mvA(const float* x, int64_t in, const uint16_t* w, int64_t rows, float* y) {
  const uintptr_t end = (uintptr_t)(w + rows * in);
  uintptr_t next = ((uintptr_t)w + PF) & ~uintptr_t{63};
  for (int64_t o = 0; o < rows; o++) {
    const uint16_t* r = w + o * in;
    if (PF) pf<HINT>(next, std::min(end, (uintptr_t)(r + in) + PF));
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t k = 0; k < in; k += 64) {
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k), w512(r + k), a0);
      a1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k + 16), w512(r + k + 16), a1);
      a2 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k + 32), w512(r + k + 32), a2);
      a3 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k + 48), w512(r + k + 48), a3);
    }
    y[o] = red512(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
  }
}
// B: unpack with zero, x permuted: xp[k..k+32): lo lanes then hi lanes
void permx(const float* x, int64_t in, float* xp) {
  for (int64_t k = 0; k < in; k += 32)
    for (int l = 0; l < 4; l++)
      for (int i = 0; i < 4; i++) {
        xp[k + l * 4 + i] = x[k + l * 8 + i];
        xp[k + 16 + l * 4 + i] = x[k + l * 8 + 4 + i];
      }
}
template <int HINT>
void mvB(const float* xp, int64_t in, const uint16_t* w, int64_t rows, float* y) {
  const uintptr_t end = (uintptr_t)(w + rows * in);
  uintptr_t next = ((uintptr_t)w + PF) & ~uintptr_t{63};
  const __m512i z = _mm512_setzero_si512();
  for (int64_t o = 0; o < rows; o++) {
    const uint16_t* r = w + o * in;
    if (PF) pf<HINT>(next, std::min(end, (uintptr_t)(r + in) + PF));
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t k = 0; k < in; k += 64) {
      __m512i v0 = _mm512_loadu_si512(r + k), v1 = _mm512_loadu_si512(r + k + 32);
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + k), _mm512_castsi512_ps(_mm512_unpacklo_epi16(z, v0)), a0);
      a1 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + k + 16), _mm512_castsi512_ps(_mm512_unpackhi_epi16(z, v0)), a1);
      a2 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + k + 32), _mm512_castsi512_ps(_mm512_unpacklo_epi16(z, v1)), a2);
      a3 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + k + 48), _mm512_castsi512_ps(_mm512_unpackhi_epi16(z, v1)), a3);
    }
    y[o] = red512(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
  }
}
// D: avx2 ymm
static inline __m256 w256(const uint16_t* w) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)w)), 16));
}
template <int HINT>
void mvD(const float* x, int64_t in, const uint16_t* w, int64_t rows, float* y) {
  const uintptr_t end = (uintptr_t)(w + rows * in);
  uintptr_t next = ((uintptr_t)w + PF) & ~uintptr_t{63};
  for (int64_t o = 0; o < rows; o++) {
    const uint16_t* r = w + o * in;
    if (PF) pf<HINT>(next, std::min(end, (uintptr_t)(r + in) + PF));
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t k = 0; k < in; k += 32) {
      a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), w256(r + k), a0);
      a1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k + 8), w256(r + k + 8), a1);
      a2 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k + 16), w256(r + k + 16), a2);
      a3 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k + 24), w256(r + k + 24), a3);
    }
    __m256 a = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
    float t[8];
    _mm256_storeu_ps(t, a);
    float s = 0;
    for (float v : t) s += v;
    y[o] = s;
  }
}

// E: A with in-loop prefetch (2 lines per 64 weights) PF bytes ahead (may run past the end into the next rows; clamp by
// end)
template <int HINT>
void mvE(const float* x, int64_t in, const uint16_t* w, int64_t rows, float* y) {
  const char* end = (const char*)(w + rows * in);
  for (int64_t o = 0; o < rows; o++) {
    const uint16_t* r = w + o * in;
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t k = 0; k < in; k += 64) {
      const char* p = (const char*)(r + k) + PF;
      if (p < end) {
        _mm_prefetch(p, (_mm_hint)HINT);
        _mm_prefetch(p + 64, (_mm_hint)HINT);
      }
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k), w512(r + k), a0);
      a1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k + 16), w512(r + k + 16), a1);
      a2 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k + 32), w512(r + k + 32), a2);
      a3 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k + 48), w512(r + k + 48), a3);
    }
    y[o] = red512(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
  }
}
template <int HINT>
void mvF(const float* xp, int64_t in, const uint16_t* w, int64_t rows, float* y) {
  const char* end = (const char*)(w + rows * in);
  const __m512i z = _mm512_setzero_si512();
  for (int64_t o = 0; o < rows; o++) {
    const uint16_t* r = w + o * in;
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t k = 0; k < in; k += 64) {
      const char* p = (const char*)(r + k) + PF;
      if (p < end) {
        _mm_prefetch(p, (_mm_hint)HINT);
        _mm_prefetch(p + 64, (_mm_hint)HINT);
      }
      __m512i v0 = _mm512_loadu_si512(r + k), v1 = _mm512_loadu_si512(r + k + 32);
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + k), _mm512_castsi512_ps(_mm512_unpacklo_epi16(z, v0)), a0);
      a1 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + k + 16), _mm512_castsi512_ps(_mm512_unpackhi_epi16(z, v0)), a1);
      a2 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + k + 32), _mm512_castsi512_ps(_mm512_unpacklo_epi16(z, v1)), a2);
      a3 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + k + 48), _mm512_castsi512_ps(_mm512_unpackhi_epi16(z, v1)), a3);
    }
    y[o] = red512(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
  }
}
int main(int argc, char** argv) {
  int64_t rows = argc > 1 ? atol(argv[1]) : 16384, in = argc > 2 ? atol(argv[2]) : 1280;
  int calls = getenv("T") && atoi(getenv("T")) > 1 ? 60 : 20;
  std::vector<uint16_t> w(rows * in);
  for (size_t i = 0; i < w.size(); i++) w[i] = 0x3c00 + (rand() & 0xff);
  std::vector<float> x(in), xp(in), y(rows);
  for (auto& v : x) v = rand() / (float)RAND_MAX;
  permx(x.data(), in, xp.data());
  int T = getenv("T") ? atoi(getenv("T")) : 1;
  auto bench = [&](const char* name, auto fn0) {
    auto fn = [&] {
      if (T == 1) {
        fn0(0, rows);
        return;
      }
      std::vector<std::thread> th;
      for (int i = 0; i < T; i++) th.emplace_back([&, i] { fn0(rows * i / T, rows * (i + 1) / T); });
      for (auto& t : th) t.join();
    };
    double best = 1e9;
    for (int r = 0; r < 15; r++) {
      auto t0 = std::chrono::steady_clock::now();
      for (int c = 0; c < calls; c++) fn();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / calls);
    }
    printf("%s %.1f Gw/s  ", name, rows * in / best / 1e9);
  };
  for (int rep = 0; rep < 3; rep++) {
    PF = 2048;
    printf("PF=%d: ", PF);
    bench("A", [&](int64_t a, int64_t b) { mvA<_MM_HINT_NTA>(x.data(), in, w.data() + a * in, b - a, y.data() + a); });
    bench("D", [&](int64_t a, int64_t b) { mvD<_MM_HINT_NTA>(x.data(), in, w.data() + a * in, b - a, y.data() + a); });
    bench("E", [&](int64_t a, int64_t b) { mvE<_MM_HINT_NTA>(x.data(), in, w.data() + a * in, b - a, y.data() + a); });
    bench("F", [&](int64_t a, int64_t b) { mvF<_MM_HINT_NTA>(xp.data(), in, w.data() + a * in, b - a, y.data() + a); });
    PF = 0;
    bench("A0", [&](int64_t a, int64_t b) { mvA<_MM_HINT_NTA>(x.data(), in, w.data() + a * in, b - a, y.data() + a); });
    bench("D0", [&](int64_t a, int64_t b) { mvD<_MM_HINT_NTA>(x.data(), in, w.data() + a * in, b - a, y.data() + a); });
    bench("B0",
          [&](int64_t a, int64_t b) { mvB<_MM_HINT_NTA>(xp.data(), in, w.data() + a * in, b - a, y.data() + a); });
    printf("\n");
  }
}
