// CPU implementation of linear.h: the products of one pass split by work over the pool, each part through the
// dispatched Kernels::linear_rows.
#include "../linear.h"

#include <algorithm>

namespace ocr {

// Runs several independent y = x W^T products in one parallel pass, split by work (rows x tokens) into
// kItemsPerThread items per thread that the pool hands out (parallel_items): a thread streams its own
// contiguous share and then helps with the others' ends, so a worker that starts late (a shared machine, a
// sleeping thread's wake-up) does not hold the pass up by its whole share.
namespace {
constexpr int64_t kItemsPerThread = 8;
}  // namespace

void linear(const Kernels& k, ThreadPool& pool, int64_t min_parallel_macs, const std::vector<LinearJob>& jobs) {
  std::vector<int64_t> row_base(jobs.size() + 1, 0), cost_base(jobs.size() + 1, 0);
  bool packed =
      false;  // prefill: rows split in whole packed-panel blocks (a split panel is packed and run twice, half empty)
  for (size_t j = 0; j < jobs.size(); j++) {
    row_base[j + 1] = row_base[j] + jobs[j].w->rows();
    cost_base[j + 1] = cost_base[j] + jobs[j].w->rows() * std::max<int64_t>(1, jobs[j].n);
    packed = packed || jobs[j].n >= kPackedMinTokens;
  }
  const int64_t block = packed ? kPackedRowBlock : 4;  // else keep 4-row register blocks whole
  // Small products (the tiny test models, MoE experts with few tokens) run on one thread: waking the
  // pool costs more than it saves below ~256K multiply-adds.
  int64_t macs = 0;
  for (auto& j : jobs) macs += j.w->rows() * j.w->cols() * std::max<int64_t>(1, j.n);
  const int64_t parts = macs < min_parallel_macs ? 1 : pool.size() * kItemsPerThread;
  auto boundary = [&](int64_t p) -> int64_t {  // global row index where part p starts
    if (p >= parts) return row_base.back();
    const int64_t c = cost_base.back() * p / parts;
    size_t j = 0;
    while (j + 1 < jobs.size() && cost_base[j + 1] <= c) j++;
    const int64_t rows = jobs[j].w->rows();
    int64_t r = (c - cost_base[j]) / std::max<int64_t>(1, jobs[j].n);
    r = std::min(rows, (r + block / 2) / block * block);
    return row_base[j] + r;
  };
  auto run = [&](int64_t p) {
    const int64_t g0 = boundary(p), g1 = boundary(p + 1);
    for (size_t j = 0; j < jobs.size(); j++) {
      const int64_t lo = std::max(g0, row_base[j]), hi = std::min(g1, row_base[j + 1]);
      if (lo >= hi || jobs[j].n == 0) continue;
      const LinearJob& J = jobs[j];
      const int64_t rows = J.w->rows(), in = J.w->cols();
      k.linear_rows(J.x, in, J.n, in, J.w->dtype, J.w->data, lo - row_base[j], hi - row_base[j],
                    J.y + (lo - row_base[j]), rows);
    }
  };
  if (parts == 1)
    run(0);
  else
    pool.parallel_items(parts, run);
}

}  // namespace ocr
