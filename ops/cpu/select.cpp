// CPU implementation of select.h: focal pruning's head mean and linear-time top-k.
#include "../select.h"

#include <algorithm>
#include <functional>

namespace ocr {

void head_mean(const float* probs, int64_t heads, int64_t n, double* mean) {
  // Head by head over contiguous rows (the compiler vectorises it); each mean[j] still adds h = 0, 1, ... in order.
  std::fill(mean, mean + n, 0.0);
  for (int64_t h = 0; h < heads; h++) {
    const float* row = probs + h * n;
    for (int64_t j = 0; j < n; j++) mean[j] += static_cast<double>(row[j]);
  }
  const double heads_f = static_cast<double>(heads);
  for (int64_t j = 0; j < n; j++) mean[j] /= heads_f;
}

void topk_indices(const double* score, int64_t n, int64_t k, std::vector<double>& scratch, int32_t* out) {
  k = std::max<int64_t>(0, std::min(k, n));
  if (k == 0) return;
  if (k == n) {
    for (int64_t j = 0; j < n; j++) out[j] = static_cast<int32_t>(j);
    return;
  }
  // The k-th largest value is the threshold: every larger score is kept, and of the scores equal to it the
  // lowest indices fill the remaining places (the same set as sorting by (score desc, index asc)).
  scratch.assign(score, score + n);
  std::nth_element(scratch.begin(), scratch.begin() + (k - 1), scratch.end(), std::greater<double>());
  const double threshold = scratch[static_cast<size_t>(k - 1)];
  int64_t above = 0;
  for (int64_t j = 0; j < n; j++) above += score[j] > threshold;
  int64_t ties_left = k - above, m = 0;
  for (int64_t j = 0; j < n && m < k; j++) {
    if (score[j] > threshold)
      out[m++] = static_cast<int32_t>(j);
    else if (score[j] == threshold && ties_left > 0) {
      out[m++] = static_cast<int32_t>(j);
      ties_left--;
    }
  }
}

void topk_indices_ref(const double* score, int64_t n, int64_t k, int32_t* out) {
  std::vector<int32_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) order[i] = static_cast<int32_t>(i);
  std::sort(order.begin(), order.end(),
            [&](int32_t a, int32_t b) { return score[a] != score[b] ? score[a] > score[b] : a < b; });
  order.resize(static_cast<size_t>(std::max<int64_t>(0, std::min(k, n))));
  std::sort(order.begin(), order.end());
  std::copy(order.begin(), order.end(), out);
}

}  // namespace ocr
