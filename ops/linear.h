// Op contract: y = x W^T for weight matrices in any stored dtype, several independent products in one parallel pass.
// CPU implementation: cpu/linear.cpp (over the dispatched Kernels::linear_rows).
#pragma once
#include <cstdint>
#include <vector>

#include "common.h"
#include "cpu/kernels.h"
#include "threadpool.h"

namespace ocr {

struct LinearJob {
  const float* x;  // [n, in] f32
  int64_t n;
  const TensorView* w;  // [rows, in] in w->dtype (f32, f16, bf16, or q8_0 / q4_1 blocks: common.h)
  float* y;             // [n, rows] f32
};

// y_j = x_j W_j^T for every job. Each output element is computed by one thread in an order that does not depend on
// the thread count or the split, so 1 and N threads give identical bits. Below min_parallel_macs multiply-adds in all
// the pass runs on the calling thread.
void linear(const Kernels& kr, ThreadPool& pool, int64_t min_parallel_macs, const std::vector<LinearJob>& jobs);

}  // namespace ocr
