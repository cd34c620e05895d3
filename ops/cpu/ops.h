// Element-wise and attention ops of the forward pass (CPU). Each states its shapes and formula; the
// heavy inner loops go through the dispatched Kernels so every op runs on the chosen ISA.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "../common.h"
#include "../threadpool.h"
#include "kernels.h"

namespace ocr {

// y[t] = w * (x[t] / sqrt(mean(x[t]^2) + eps)), all f32. x, y: [n, dim] (may alias).
void rms_norm(const float* x, const float* w, float* y, int64_t n, int64_t dim, float eps);

// Rotate-half RoPE in place. x: [n, heads, head_dim]; positions: [n].
// For i < d/2 with f_i = theta^(-2i/d): (x_i, x_{i+d/2}) <- (x_i cos - x_{i+d/2} sin, x_{i+d/2} cos + x_i sin), angle = pos * f_i.
void rope(float* x, const int64_t* positions, int64_t n, int64_t heads, int64_t head_dim, float theta);

// MoE routing for one token: softmax(logits) in f32, the k largest (ties: lowest expert index first),
// then renormalised (norm_topk && k > 1) or multiplied by `scale` — as DeepSeek-V2's greedy gate.
void route_topk(const float* logits, int64_t n_experts, int64_t k, bool norm_topk, float scale, int32_t* ids, float* weights);

// Index of the largest value, ties to the lowest index; entries flagged in `banned` are skipped (-1 if all are).
int64_t argmax_masked(const float* x, int64_t n, const std::vector<uint8_t>* banned);

// Focal pruning's selection, in two steps.
// mean[j] = (sum over h = 0, 1, ..., heads-1 of probs[h * n + j]) / heads, summed in f64 in that order (the PyTorch
// reference's order). probs: [heads, n] f32; mean: [n] f64.
void head_mean(const float* probs, int64_t heads, int64_t n, double* mean);
// The k largest of score[0 .. n) (ties: lowest index first), written as ascending indices to out[0 .. k).
// Linear time: one selection for the k-th largest value, then one ascending pass; `scratch` is reused across calls.
void topk_indices(const double* score, int64_t n, int64_t k, std::vector<double>& scratch, int32_t* out);
// The same selection by a full sort, for tests.
void topk_indices_ref(const double* score, int64_t n, int64_t k, int32_t* out);

// Storage of the K/V cache: 64-byte aligned (rows start on cache lines), and from 2 MiB on 2 MiB aligned and advised
// as transparent huge pages (Linux, where THP is `madvise` or `always`). A decode step reads every layer's cache once
// between megabytes of weights, so its rows' 4 KB page translations are gone from the TLB each time; 2 MiB pages
// leave one translation per 2 MiB.
template <typename T>
struct KvAllocator {
  using value_type = T;
  KvAllocator() = default;
  template <typename U>
  KvAllocator(const KvAllocator<U>&) {}
  T* allocate(size_t n);
  void deallocate(T* p, size_t) { std::free(p); }
  template <typename U>
  bool operator==(const KvAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const KvAllocator<U>&) const { return false; }
};
void* kv_alloc(size_t bytes);
template <typename T>
T* KvAllocator<T>::allocate(size_t n) {
  return static_cast<T*>(kv_alloc(n * sizeof(T)));
}
using KvBuffer = std::vector<uint8_t, KvAllocator<uint8_t>>;

// Key/value cache of one layer, head-major: k, v are [kv_heads, capacity, head_dim] in `dtype`, so the
// keys one head scans are contiguous (a query streams them instead of gathering strided pieces).
struct KvLayer {
  DType dtype = DType::F32;
  int64_t kv_heads = 0, head_dim = 0, capacity = 0;
  KvBuffer k, v;
  size_t row_bytes() const { return static_cast<size_t>(head_dim) * dtype_size(dtype); }
  size_t offset(int64_t head, int64_t slot) const { return (static_cast<size_t>(head) * capacity + slot) * row_bytes(); }
  // Grows to `slots` slots per head, keeping every stored row at its slot.
  void grow(int64_t slots);
};

// How `attention` runs: per query (each (query, head) scans its keys: scores, softmax, weighted sum; the decode
// path, and the only one that can write `probs`) or blocked (tiles of queries against tiles of keys with an online
// softmax: prefill). Auto takes the blocked path from kBlockedMinQueries queries on, when no probs are asked for.
enum class AttentionPath { Auto, PerQuery, Blocked };
constexpr int64_t kBlockedMinQueries = 8;
// Query rows per blocked tile (queries x the heads sharing a kv head): a multiple of the register blocks
// (6 and 12 score rows, 6 and 8 output rows) of both SIMD sets.
constexpr int64_t kBlockedRows = 48;

// Attention as a policy: query i attends exactly the slots slots[0 .. visible[i]) (in position order).
// q: [n_q, heads, d] (rotated); out: [n_q, heads, d]. out = softmax(q.k / sqrt(d)) v per head, kv head
// = head / (heads / kv_heads). A query with no visible slot gets zeros.
// Runs on the calling thread when the work is below min_parallel_macs. With `probs` ([n_q, heads, max(visible)])
// the softmax weights of each (query, head) are written there too (focal pruning reads them).
// Blocked path: work items are (kv head, tile of kBlockedRows / group consecutive queries), handed to the pool's
// threads largest first; each item is computed whole by one thread, so any thread count gives the same bits.
void attention(const Kernels& kr, ThreadPool& pool, int64_t min_parallel_macs, const float* q, int64_t n_q, int64_t heads, int64_t kv_heads,
               int64_t head_dim, const KvLayer& kv, const int32_t* slots, const int32_t* visible, float* out, float* probs = nullptr,
               AttentionPath path = AttentionPath::Auto);

// The same formula in three plain loops, for tests.
void attention_ref(const float* q, int64_t n_q, int64_t heads, int64_t kv_heads, int64_t head_dim, const KvLayer& kv,
                   const int32_t* slots, const int32_t* visible, float* out);

}  // namespace ocr
