// Op contracts: MoE routing and greedy token choice. CPU implementation: cpu/routing.cpp.
#pragma once
#include <cstdint>
#include <vector>

namespace ocr {

// MoE routing for one token: softmax(logits) in f32, the k largest (ties: lowest expert index first),
// then renormalised (norm_topk && k > 1) or multiplied by `scale` — as DeepSeek-V2's greedy gate.
void route_topk(const float* logits, int64_t n_experts, int64_t k, bool norm_topk, float scale, int32_t* ids,
                float* weights);

// Index of the largest value, ties to the lowest index; entries flagged in `banned` are skipped (-1 if all are).
int64_t argmax_masked(const float* x, int64_t n, const std::vector<uint8_t>* banned);

// The k largest values' indices, largest first (ties to the lower index), skipping `skip` and the entries flagged in
// `banned`; -1 fills the places beyond the entries left.
void top_masked(const float* x, int64_t n, const std::vector<uint8_t>* banned, int64_t skip, int k, int32_t* ids);

}  // namespace ocr
