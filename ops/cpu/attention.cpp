// CPU implementation of attention.h: per-query (decode) and blocked (prefill) attention over slot lists, on the
// dispatched Kernels and the thread pool.
#include "../attention.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <vector>

namespace ocr {

namespace {

void attend_one(const Kernels& kr, const float* qh, int64_t head_dim, int64_t kv_head, const KvLayer& kv,
                const int32_t* slots, int32_t n_vis, float* scores, float* oh, float* probs = nullptr) {
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
static void attention_blocked(const Kernels& kr, ThreadPool& pool, int64_t min_parallel_macs, const float* q,
                              int64_t n_q, int64_t heads, int64_t kv_heads, int64_t head_dim, const KvLayer& kv,
                              const int32_t* slots, const int32_t* visible, float* out) {
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
      kr.attention_tile(kv.dtype, kv.k.data() + kv.offset(g, 0), kv.v.data() + kv.offset(g, 0), stride, slots,
                        qt.data(), rows, vt.data(), d, scale, ot.data());
      for (int64_t i = i0; i < i1; i++)
        std::memcpy(out + (i * heads + g * group) * d, ot.data() + (i - i0) * group * d, sizeof(float) * group * d);
    }
  };
  if (parts == 1)
    run(0, 1);
  else
    pool.parallel_for(parts, 1, run);
}

void attention(const Kernels& kr, ThreadPool& pool, int64_t min_parallel_macs, const float* q, int64_t n_q,
               int64_t heads, int64_t kv_heads, int64_t head_dim, const KvLayer& kv, const int32_t* slots,
               const int32_t* visible, float* out, float* probs, AttentionPath path) {
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
               out + (i * heads + h) * head_dim,
               probs ? probs + (i * heads + h) * static_cast<int64_t>(max_vis) : nullptr);
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
