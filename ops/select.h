// Op contracts: focal pruning's selection (policy/focal.h decides when it runs). CPU implementation: cpu/select.cpp.
#pragma once
#include <cstdint>
#include <vector>

namespace ocr {

// mean[j] = (sum over h = 0, 1, ..., heads-1 of probs[h * n + j]) / heads, summed in f64 in that order (the PyTorch
// reference's order). probs: [heads, n] f32; mean: [n] f64.
void head_mean(const float* probs, int64_t heads, int64_t n, double* mean);
// The k largest of score[0 .. n) (ties: lowest index first), written as ascending indices to out[0 .. k).
// Linear time: one selection for the k-th largest value, then one ascending pass; `scratch` is reused across calls.
void topk_indices(const double* score, int64_t n, int64_t k, std::vector<double>& scratch, int32_t* out);
// The same selection by a full sort, for tests.
void topk_indices_ref(const double* score, int64_t n, int64_t k, int32_t* out);

}  // namespace ocr
