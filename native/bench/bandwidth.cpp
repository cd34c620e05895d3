// Streaming-read probe: each thread sums its own contiguous share of a large buffer.
#include "bandwidth.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "../../ops/cpu/kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define OCR_BENCH_X86 1
#endif

namespace ocrbench {
namespace {

// Four independent accumulators per ISA, so the loads, not the adds' latency, set the pace.
float sum_scalar(const float* x, int64_t len) {
  float a[4] = {0, 0, 0, 0};
  int64_t k = 0;
  for (; k + 4 <= len; k += 4)
    for (int j = 0; j < 4; j++) a[j] += x[k + j];
  for (; k < len; k++) a[0] += x[k];
  return (a[0] + a[1]) + (a[2] + a[3]);
}

#ifdef OCR_BENCH_X86
__attribute__((target("avx2"))) float sum_avx2(const float* x, int64_t len) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t k = 0;
  for (; k + 32 <= len; k += 32) {
    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(x + k));
    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(x + k + 8));
    a2 = _mm256_add_ps(a2, _mm256_loadu_ps(x + k + 16));
    a3 = _mm256_add_ps(a3, _mm256_loadu_ps(x + k + 24));
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  float s = 0;
  for (float l : lanes) s += l;
  return s + sum_scalar(x + k, len - k);
}

__attribute__((target("avx512f"))) float sum_avx512(const float* x, int64_t len) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t k = 0;
  for (; k + 64 <= len; k += 64) {
    a0 = _mm512_add_ps(a0, _mm512_loadu_ps(x + k));
    a1 = _mm512_add_ps(a1, _mm512_loadu_ps(x + k + 16));
    a2 = _mm512_add_ps(a2, _mm512_loadu_ps(x + k + 32));
    a3 = _mm512_add_ps(a3, _mm512_loadu_ps(x + k + 48));
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3))) + sum_scalar(x + k, len - k);
}
#endif

using SumFn = float (*)(const float*, int64_t);
SumFn widest_sum() {
#ifdef OCR_BENCH_X86
  if (ocr::cpu_supports("avx512")) return sum_avx512;
  if (ocr::cpu_supports("avx2")) return sum_avx2;
#endif
  return sum_scalar;
}

}  // namespace

double measure_read_bandwidth(ocr::ThreadPool& pool, size_t bytes, int repeats) {
  const SumFn sum = widest_sum();
  const int64_t n = static_cast<int64_t>(bytes / sizeof(float));
  // In huge pages where the kernel gives them, as the decoder's weights are held (ops/safetensors.h): the bound is
  // the machine's best streaming read, not one slowed by a page walk every 4 KB.
  const size_t huge = size_t{2} << 20, len = static_cast<size_t>(n) * sizeof(float) + huge;
  void* raw = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return 0;
  float* data = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(raw) + huge - 1) & ~(huge - 1));
  ::madvise(data, static_cast<size_t>(n) * sizeof(float), MADV_HUGEPAGE);
  struct Unmap {
    void* p;
    size_t n;
    ~Unmap() { ::munmap(p, n); }
  } unmap{raw, len};
  // Touch every page from the thread that will read it (first-touch placement).
  pool.parallel_for(n, 4096, [&](int64_t b, int64_t e) { std::fill(data + b, data + e, 1.0f); });
  double best = 0;
  volatile float sink = 0;
  for (int r = 0; r < repeats; r++) {
    std::vector<float> partial(static_cast<size_t>(pool.size()), 0.f);
    auto t0 = std::chrono::steady_clock::now();
    pool.parallel_for(n, 4096, [&](int64_t b, int64_t e) {
      const float s = sum(data + b, e - b);
      partial[static_cast<size_t>(b * pool.size() / n)] += s;
    });
    auto t1 = std::chrono::steady_clock::now();
    for (float p : partial) sink = sink + p;
    const double sec = std::chrono::duration<double>(t1 - t0).count();
    best = std::max(best, static_cast<double>(n) * sizeof(float) / sec / 1e9);
  }
  (void)sink;
  return best;
}

}  // namespace ocrbench
