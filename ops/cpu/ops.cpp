// CPU implementations of the small ops and of attention over an explicit list of key slots.
#include "ops.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ocr {

void rms_norm(const float* x, const float* w, float* y, int64_t n, int64_t dim, float eps) {
  for (int64_t t = 0; t < n; t++) {
    const float* xr = x + t * dim;
    float* yr = y + t * dim;
    float ss = 0.f;
    for (int64_t i = 0; i < dim; i++) ss += xr[i] * xr[i];
    const float inv = 1.0f / std::sqrt(ss / static_cast<float>(dim) + eps);
    for (int64_t i = 0; i < dim; i++) yr[i] = w[i] * (xr[i] * inv);
  }
}

void rope(float* x, const int64_t* positions, int64_t n, int64_t heads, int64_t head_dim, float theta) {
  const int64_t half = head_dim / 2;
  std::vector<float> inv_freq(static_cast<size_t>(half)), cs(static_cast<size_t>(head_dim));
  for (int64_t i = 0; i < half; i++)
    inv_freq[i] = 1.0f / std::pow(theta, static_cast<float>(2 * i) / static_cast<float>(head_dim));
  for (int64_t t = 0; t < n; t++) {
    const float pos = static_cast<float>(positions[t]);
    for (int64_t i = 0; i < half; i++) {
      const float a = pos * inv_freq[i];
      cs[i] = std::cos(a);
      cs[half + i] = std::sin(a);
    }
    for (int64_t h = 0; h < heads; h++) {
      float* r = x + (t * heads + h) * head_dim;
      for (int64_t i = 0; i < half; i++) {
        const float x1 = r[i], x2 = r[i + half], c = cs[i], s = cs[half + i];
        r[i] = x1 * c - x2 * s;
        r[i + half] = x2 * c + x1 * s;
      }
    }
  }
}

void route_topk(const float* logits, int64_t n_experts, int64_t k, bool norm_topk, float scale, int32_t* ids, float* weights) {
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
    if (score[j] > threshold) out[m++] = static_cast<int32_t>(j);
    else if (score[j] == threshold && ties_left > 0) {
      out[m++] = static_cast<int32_t>(j);
      ties_left--;
    }
  }
}

void topk_indices_ref(const double* score, int64_t n, int64_t k, int32_t* out) {
  std::vector<int32_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) order[i] = static_cast<int32_t>(i);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return score[a] != score[b] ? score[a] > score[b] : a < b; });
  order.resize(static_cast<size_t>(std::max<int64_t>(0, std::min(k, n))));
  std::sort(order.begin(), order.end());
  std::copy(order.begin(), order.end(), out);
}

void* kv_alloc(size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t align = bytes >= kHuge ? kHuge : 64;
  const size_t rounded = (std::max<size_t>(bytes, 1) + align - 1) / align * align;  // aligned_alloc wants a multiple
  void* p = std::aligned_alloc(align, rounded);
  if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (align == kHuge) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP the pages stay 4 KB
#endif
  return p;
}

void KvLayer::grow(int64_t slots) {
  if (slots <= capacity) return;
  const size_t rb = row_bytes();
  KvBuffer nk(static_cast<size_t>(kv_heads * slots) * rb), nv(nk.size());
  for (int64_t h = 0; h < kv_heads; h++) {
    std::memcpy(nk.data() + static_cast<size_t>(h * slots) * rb, k.data() + offset(h, 0), static_cast<size_t>(capacity) * rb);
    std::memcpy(nv.data() + static_cast<size_t>(h * slots) * rb, v.data() + offset(h, 0), static_cast<size_t>(capacity) * rb);
  }
  k.swap(nk);
  v.swap(nv);
  capacity = slots;
}

namespace {

void attend_one(const Kernels& kr, const float* qh, int64_t head_dim, int64_t kv_head, const KvLayer& kv, const int32_t* slots,
                int32_t n_vis, float* scores, float* oh, float* probs = nullptr) {
  std::fill(oh, oh + head_dim, 0.f);
  if (n_vis <= 0) return;
  const int64_t stride = static_cast<int64_t>(kv.row_bytes());
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  if (probs) scores = probs;  // the softmax lands where the caller reads it (no copy)
  kr.scores(kv.dtype, kv.k.data() + kv.offset(kv_head, 0), stride, slots, n_vis, qh, head_dim, scale, scores);
  kr.softmax(scores, n_vis);
  kr.weighted_sum(kv.dtype, kv.v.data() + kv.offset(kv_head, 0), stride, slots, n_vis, scores, head_dim, oh);
}

}  // namespace

// Tiles of queries (all heads of one kv head) against the key tiles of kr.attention_tile.
static void attention_blocked(const Kernels& kr, ThreadPool& pool, int64_t min_parallel_macs, const float* q, int64_t n_q, int64_t heads,
                              int64_t kv_heads, int64_t head_dim, const KvLayer& kv, const int32_t* slots, const int32_t* visible, float* out) {
  const int64_t group = heads / kv_heads, d = head_dim;
  const int64_t tq = std::max<int64_t>(1, kBlockedRows / group);  // queries per tile
  const int64_t tiles = (n_q + tq - 1) / tq, items = tiles * kv_heads;
  int64_t work = 0;
  for (int64_t i = 0; i < n_q; i++) work += static_cast<int64_t>(visible[i]) * heads * head_dim;
  const int64_t parts = work < min_parallel_macs ? 1 : std::min<int64_t>(pool.size(), items);
  const int64_t stride = static_cast<int64_t>(kv.row_bytes());
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  // Items are taken from a shared counter, the last query tiles (the most keys in a causal prefill) first: a
  // thread slowed by other load takes fewer of them, and no result depends on who computed it.
  std::atomic<int64_t> next{0};
  auto run = [&](int64_t, int64_t) {
    std::vector<float> qt(static_cast<size_t>(tq * group * d)), ot(qt.size());
    std::vector<int32_t> vt(static_cast<size_t>(tq * group));
    for (;;) {
      const int64_t w = next.fetch_add(1, std::memory_order_relaxed);
      if (w >= items) break;
      const int64_t t = tiles - 1 - w / kv_heads, g = w % kv_heads;
      const int64_t i0 = t * tq, i1 = std::min(n_q, i0 + tq);
      const int32_t rows = static_cast<int32_t>((i1 - i0) * group);
      for (int64_t i = i0; i < i1; i++)
        for (int64_t hh = 0; hh < group; hh++) {
          const int64_t r = (i - i0) * group + hh;
          std::memcpy(qt.data() + r * d, q + (i * heads + g * group + hh) * d, sizeof(float) * d);
          vt[r] = visible[i];
        }
      kr.attention_tile(kv.dtype, kv.k.data() + kv.offset(g, 0), kv.v.data() + kv.offset(g, 0), stride, slots, qt.data(), rows,
                        vt.data(), d, scale, ot.data());
      for (int64_t i = i0; i < i1; i++)
        std::memcpy(out + (i * heads + g * group) * d, ot.data() + (i - i0) * group * d, sizeof(float) * group * d);
    }
  };
  if (parts == 1) run(0, 1);
  else pool.parallel_for(parts, 1, run);
}

void attention(const Kernels& kr, ThreadPool& pool, int64_t min_parallel_macs, const float* q, int64_t n_q, int64_t heads, int64_t kv_heads,
               int64_t head_dim, const KvLayer& kv, const int32_t* slots, const int32_t* visible, float* out, float* probs,
               AttentionPath path) {
  if (!probs && (path == AttentionPath::Blocked || (path == AttentionPath::Auto && n_q >= kBlockedMinQueries))) {
    attention_blocked(kr, pool, min_parallel_macs, q, n_q, heads, kv_heads, head_dim, kv, slots, visible, out);
    return;
  }
  const int64_t group = heads / kv_heads;
  int32_t max_vis = 0;
  for (int64_t i = 0; i < n_q; i++) max_vis = std::max(max_vis, visible[i]);
  // One item per (query, head), handed out by the pool (a decode step: one per head); the pool balances causal
  // prefill, where later queries see more keys, by letting a thread that is done take items from the others.
  const int64_t total = n_q * heads;
  int64_t work = 0;
  for (int64_t i = 0; i < n_q; i++) work += static_cast<int64_t>(visible[i]) * heads * head_dim;
  auto item = [&](int64_t w) {
    thread_local std::vector<float> scores;
    const size_t need = static_cast<size_t>(std::max<int32_t>(1, max_vis));
    if (scores.size() < need) scores.resize(need);
    const int64_t i = w / heads, h = w % heads;
    attend_one(kr, q + (i * heads + h) * head_dim, head_dim, h / group, kv, slots, visible[i], scores.data(),
               out + (i * heads + h) * head_dim, probs ? probs + (i * heads + h) * static_cast<int64_t>(max_vis) : nullptr);
  };
  if (work < min_parallel_macs) {
    for (int64_t w = 0; w < total; w++) item(w);
  } else {
    pool.parallel_items(total, item);
  }
}

void attention_ref(const float* q, int64_t n_q, int64_t heads, int64_t kv_heads, int64_t head_dim, const KvLayer& kv,
                   const int32_t* slots, const int32_t* visible, float* out) {
  const Kernels& ref = kernels_ref();
  const int64_t group = heads / kv_heads;
  for (int64_t i = 0; i < n_q; i++) {
    std::vector<float> scores(static_cast<size_t>(std::max<int32_t>(1, visible[i])));
    for (int64_t h = 0; h < heads; h++)
      attend_one(ref, q + (i * heads + h) * head_dim, head_dim, h / group, kv, slots, visible[i], scores.data(),
                 out + (i * heads + h) * head_dim);
  }
}

}  // namespace ocr
