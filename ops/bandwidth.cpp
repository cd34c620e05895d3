// Streaming-read probe: each thread sums its own contiguous share of a large buffer.
#include "bandwidth.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace ocr {

double measure_read_bandwidth(const Kernels& k, ThreadPool& pool, size_t bytes, int repeats) {
  const int64_t n = static_cast<int64_t>(bytes / sizeof(float));
  std::vector<float> buf(static_cast<size_t>(n));
  // Touch every page from the thread that will read it (first-touch placement).
  pool.parallel_for(n, 4096, [&](int64_t b, int64_t e) { std::fill(buf.data() + b, buf.data() + e, 1.0f); });
  double best = 0;
  volatile float sink = 0;
  for (int r = 0; r < repeats; r++) {
    std::vector<float> partial(static_cast<size_t>(pool.size()), 0.f);
    auto t0 = std::chrono::steady_clock::now();
    pool.parallel_for(n, 4096, [&](int64_t b, int64_t e) {
      const float s = k.sum(buf.data() + b, e - b);
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

}  // namespace ocr
