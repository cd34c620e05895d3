// CPU implementation of routing.h: DeepSeek-V2's greedy top-k gate and the masked argmax.
#include "../routing.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ocr {

void route_topk(const float* logits, int64_t n_experts, int64_t k, bool norm_topk, float scale, int32_t* ids,
                float* weights) {
  std::vector<float> p(static_cast<size_t>(n_experts));
  float mx = -std::numeric_limits<float>::infinity();
  for (int64_t e = 0; e < n_experts; e++) mx = std::max(mx, logits[e]);
  float sum = 0.f;
  for (int64_t e = 0; e < n_experts; e++) sum += (p[e] = std::exp(logits[e] - mx));
  for (int64_t e = 0; e < n_experts; e++) p[e] /= sum;
  std::vector<uint8_t> taken(static_cast<size_t>(n_experts), 0);
  for (int64_t j = 0; j < k; j++) {
    int64_t best = -1;
    for (int64_t e = 0; e < n_experts; e++)
      if (!taken[e] && (best < 0 || p[e] > p[best])) best = e;  // strict '>' keeps the lowest index on ties
    taken[best] = 1;
    ids[j] = static_cast<int32_t>(best);
    weights[j] = p[best];
  }
  if (norm_topk && k > 1) {
    float s = 0.f;
    for (int64_t j = 0; j < k; j++) s += weights[j];
    s += 1e-20f;
    for (int64_t j = 0; j < k; j++) weights[j] /= s;
  } else {
    for (int64_t j = 0; j < k; j++) weights[j] *= scale;
  }
}

int64_t argmax_masked(const float* x, int64_t n, const std::vector<uint8_t>* banned) {
  int64_t best = -1;
  for (int64_t i = 0; i < n; i++) {
    if (banned && (*banned)[static_cast<size_t>(i)]) continue;
    if (best < 0 || x[i] > x[best]) best = i;
  }
  return best;
}

void top_masked(const float* x, int64_t n, const std::vector<uint8_t>* banned, int64_t skip, int k, int32_t* ids) {
  std::fill(ids, ids + k, -1);
  for (int64_t i = 0; i < n; i++) {
    if (i == skip || (banned && (*banned)[static_cast<size_t>(i)])) continue;
    // (an insertion into the short sorted list; strict '>' keeps the lower index first on ties)
    int at = k;
    while (at > 0 && (ids[at - 1] < 0 || x[i] > x[ids[at - 1]])) at--;
    if (at >= k) continue;
    for (int j = k - 1; j > at; j--) ids[j] = ids[j - 1];
    ids[at] = static_cast<int32_t>(i);
  }
}

}  // namespace ocr
