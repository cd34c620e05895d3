// Op contract: attention over an explicit list of key slots. The attention policies (policy/rswa.h,
// policy/focal.h) decide the list; the op never knows why a key is in it. CPU implementation: cpu/attention.cpp.
#pragma once
#include <cstdint>

#include "cpu/kernels.h"
#include "kv_cache.h"
#include "threadpool.h"

namespace ocr {

// How `attention` runs: per query (each (query, head) scans its keys: scores, softmax, weighted sum; the decode
// path, and the only one that can write `probs`) or blocked (tiles of queries against tiles of keys with an online
// softmax: prefill). Auto takes the blocked path from kBlockedMinQueries queries on, when no probs are asked for.
enum class AttentionPath { Auto, PerQuery, Blocked };
constexpr int64_t kBlockedMinQueries = 8;
// Query rows per blocked tile (queries x the heads sharing a kv head): a multiple of the register blocks
// (6 and 12 score rows, 6 and 8 output rows) of both SIMD sets.
constexpr int64_t kBlockedRows = 48;

// Query i attends exactly the slots slots[0 .. visible[i]) (in position order).
// q: [n_q, heads, d] (rotated); out: [n_q, heads, d]. out = softmax(q.k / sqrt(d)) v per head, kv head
// = head / (heads / kv_heads). A query with no visible slot gets zeros.
// Runs on the calling thread when the work is below min_parallel_macs. With `probs` ([n_q, heads, max(visible)])
// the softmax weights of each (query, head) are written there too (focal pruning reads them).
// Blocked path: work items are (kv head, tile of kBlockedRows / group consecutive queries), handed to the pool's
// threads largest first; each item is computed whole by one thread, so any thread count gives the same bits.
void attention(const Kernels& kr, ThreadPool& pool, int64_t min_parallel_macs, const float* q, int64_t n_q,
               int64_t heads, int64_t kv_heads, int64_t head_dim, const KvLayer& kv, const int32_t* slots,
               const int32_t* visible, float* out, float* probs = nullptr, AttentionPath path = AttentionPath::Auto);

// The same formula in three plain loops, for tests.
void attention_ref(const float* q, int64_t n_q, int64_t heads, int64_t kv_heads, int64_t head_dim, const KvLayer& kv,
                   const int32_t* slots, const int32_t* visible, float* out);

}  // namespace ocr
