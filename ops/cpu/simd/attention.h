// ISA-generic SIMD bodies, one op per file, included (in the order linear, vector, activation, attention) by
// kernels_avx2.cpp and kernels_avx512.cpp after they define `V` (a vector trait: W lanes, zero, loadx, loadw<DT>, fma,
// reduce, masked tails).
// Attention's inner loops: decode scores and weighted sums through the slot list, and the blocked prefill tile
// (uses linear.h's panel_kernel, vector.h's row_dot / axpy_dt and activation.h's exp_shifted).
#pragma once

// Decode attention reads its K and V rows through the slot list, and a 4 KB page holds only 16 bf16 rows of 128, so
// the hardware prefetchers (which stop at page ends and must first see a stream) leave much of each head's scan waiting
// on memory: the score and weighted-sum passes prefetch the rows kPrefetchKeys keys ahead themselves.
constexpr int32_t kPrefetchKeys = 16;

static inline void prefetch_row(const uint8_t* row, int64_t bytes) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(row) & ~static_cast<uintptr_t>(63);
  const uintptr_t end = reinterpret_cast<uintptr_t>(row) + static_cast<uintptr_t>(bytes);
  for (uintptr_t a = first; a < end; a += 64) _mm_prefetch(reinterpret_cast<const char*>(a), _MM_HINT_T0);
}

// Scores for eight keys at a time: each row is read front to back (one short sequential stream after another, which
// the prefetchers follow better than eight interleaved ones), the eight sums reduced together.
template <ocr::DType DT>
static void scores_dt(const uint8_t* base, int64_t stride, const int32_t* slots, int32_t n, const float* q, int64_t d,
                      float scale, float* out) {
  const int64_t row_bytes = d * static_cast<int64_t>(ocr::dtype_size(DT));
  int32_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int32_t i = j + kPrefetchKeys; i < std::min(n, j + kPrefetchKeys + 8); i++)
      prefetch_row(base + slots[i] * stride, row_bytes);
    typename V::reg acc[8];
    for (int i = 0; i < 8; i++) acc[i] = row_dot<DT>(base + slots[j + i] * stride, q, d);
    V::reduce8_store(acc, out + j);
    for (int i = 0; i < 8; i++) out[j + i] *= scale;
  }
  for (; j < n; j++) out[j] = V::reduce(row_dot<DT>(base + slots[j] * stride, q, d)) * scale;
}

static void scores_simd(ocr::DType dt, const uint8_t* base, int64_t stride, const int32_t* slots, int32_t n,
                        const float* q, int64_t d, float scale, float* out) {
  switch (dt) {
    case ocr::DType::F32:
      scores_dt<ocr::DType::F32>(base, stride, slots, n, q, d, scale, out);
      break;
    case ocr::DType::F16:
      scores_dt<ocr::DType::F16>(base, stride, slots, n, q, d, scale, out);
      break;
    default:
      scores_dt<ocr::DType::BF16>(base, stride, slots, n, q, d, scale, out);
      break;
  }
}

// Four value rows per pass over `out`: the same FMA chain per element as four single axpys, a quarter of
// the loads and stores of `out`; rows kPrefetchKeys ahead are prefetched.
template <ocr::DType DT>
static void weighted_sum_dt(const uint8_t* base, int64_t stride, const int32_t* slots, int32_t n, const float* p,
                            int64_t d, float* out) {
  const int64_t row_bytes = d * static_cast<int64_t>(ocr::dtype_size(DT));
  int32_t j = 0;
  for (; j + 4 <= n; j += 4) {
    for (int32_t i = j + kPrefetchKeys; i < std::min(n, j + kPrefetchKeys + 4); i++)
      prefetch_row(base + slots[i] * stride, row_bytes);
    const uint8_t* r0 = base + slots[j] * stride;
    const uint8_t* r1 = base + slots[j + 1] * stride;
    const uint8_t* r2 = base + slots[j + 2] * stride;
    const uint8_t* r3 = base + slots[j + 3] * stride;
    const typename V::reg p0 = V::set1(p[j]), p1 = V::set1(p[j + 1]), p2 = V::set1(p[j + 2]), p3 = V::set1(p[j + 3]);
    int64_t k = 0;
    for (; k + V::W <= d; k += V::W) {
      typename V::reg o = V::loadx(out, k);
      o = V::fma(p0, V::template loadw<DT>(r0, k), o);
      o = V::fma(p1, V::template loadw<DT>(r1, k), o);
      o = V::fma(p2, V::template loadw<DT>(r2, k), o);
      o = V::fma(p3, V::template loadw<DT>(r3, k), o);
      V::storex(out, k, o);
    }
    if (k < d) {
      const int64_t rem = d - k;
      typename V::reg o = V::loadx_tail(out, k, rem);
      o = V::fma(p0, V::template loadw_tail<DT>(r0, k, rem), o);
      o = V::fma(p1, V::template loadw_tail<DT>(r1, k, rem), o);
      o = V::fma(p2, V::template loadw_tail<DT>(r2, k, rem), o);
      o = V::fma(p3, V::template loadw_tail<DT>(r3, k, rem), o);
      V::storex_tail(out, k, rem, o);
    }
  }
  for (; j < n; j++) axpy_dt<DT>(p[j], base + slots[j] * stride, out, d);
}

static void weighted_sum_simd(ocr::DType dt, const uint8_t* base, int64_t stride, const int32_t* slots, int32_t n,
                              const float* p, int64_t d, float* out) {
  switch (dt) {
    case ocr::DType::F32:
      weighted_sum_dt<ocr::DType::F32>(base, stride, slots, n, p, d, out);
      break;
    case ocr::DType::F16:
      weighted_sum_dt<ocr::DType::F16>(base, stride, slots, n, p, d, out);
      break;
    default:
      weighted_sum_dt<ocr::DType::BF16>(base, stride, slots, n, p, d, out);
      break;
  }
}

// ---- Blocked prefill attention (flash-style): a tile of query rows against kAttentionKeyTile keys at a time. ----
// The tile's keys are packed transposed into f32 panels [d][2W] (the packed-linear layout), so the scores of 2W keys
// for PT rows are one panel_kernel call; value rows are read in place and widened in registers, AR rows x 2W
// columns of the output per pass. Softmax is online in f32: per row a running max m and sum l, and the output so
// far is scaled by exp(m_old - m_new) when the max grows.

template <ocr::DType DT>
static void pack_keys(const uint8_t* base, int64_t stride, const int32_t* slots, int32_t valid, int64_t d, float* buf) {
  constexpr int PW = 2 * V::W;
  for (int r = 0; r < PW; r++) {
    if (r < valid) {
      const uint8_t* row = base + static_cast<int64_t>(slots[r]) * stride;
      for (int64_t k = 0; k < d; k++) buf[k * PW + r] = elem<DT>(row, k);
    } else {
      for (int64_t k = 0; k < d; k++) buf[k * PW + r] = 0.f;
    }
  }
}

// o[r][k0 .. k0 + DC*W) <- alpha[r] * o[r][..] + sum_{j < nj} p[r][j] * v_j[..] for RB rows; TAIL: one masked vector of
// rem.
template <ocr::DType DT, int RB, int DC, bool TAIL>
static inline void pv_block(const uint8_t* const* vrows, int32_t nj, const float* p, int64_t ldp, const float* alpha,
                            float* o, int64_t d, int64_t k0, int64_t rem) {
  typename V::reg acc[RB][DC];
  for (int r = 0; r < RB; r++) {
    const typename V::reg a = V::set1(alpha[r]);
    for (int c = 0; c < DC; c++)
      acc[r][c] = V::mul(TAIL ? V::loadx_tail(o + r * d, k0, rem) : V::loadx(o + r * d, k0 + c * V::W), a);
  }
  for (int32_t j = 0; j < nj; j++) {
    typename V::reg vv[DC];
    for (int c = 0; c < DC; c++)
      vv[c] = TAIL ? V::template loadw_tail<DT>(vrows[j], k0, rem) : V::template loadw<DT>(vrows[j], k0 + c * V::W);
    for (int r = 0; r < RB; r++) {
      const typename V::reg b = V::set1(p[r * ldp + j]);
      for (int c = 0; c < DC; c++) acc[r][c] = V::fma(b, vv[c], acc[r][c]);
    }
  }
  for (int r = 0; r < RB; r++)
    for (int c = 0; c < DC; c++) {
      if (TAIL)
        V::storex_tail(o + r * d, k0, rem, acc[r][c]);
      else
        V::storex(o + r * d, k0 + c * V::W, acc[r][c]);
    }
}

template <ocr::DType DT, int RB>
static inline void pv_rows(const uint8_t* const* vrows, int32_t nj, const float* p, int64_t ldp, const float* alpha,
                           float* o, int64_t d) {
  int64_t k = 0;
  for (; k + 2 * V::W <= d; k += 2 * V::W) pv_block<DT, RB, 2, false>(vrows, nj, p, ldp, alpha, o, d, k, 0);
  for (; k + V::W <= d; k += V::W) pv_block<DT, RB, 1, false>(vrows, nj, p, ldp, alpha, o, d, k, 0);
  if (k < d) pv_block<DT, RB, 1, true>(vrows, nj, p, ldp, alpha, o, d, k, d - k);
}

template <ocr::DType DT>
static void attention_tile_dt(const uint8_t* kbase, const uint8_t* vbase, int64_t stride, const int32_t* slots,
                              const float* q, int32_t rows, const int32_t* vis, int64_t d, float scale, float* out) {
  constexpr int PW = 2 * V::W;
  constexpr int32_t KT = ocr::kAttentionKeyTile;
  static_assert(KT % PW == 0, "the key tile holds whole panels");
  thread_local std::vector<float> kbuf, sbuf, mbuf, lbuf, abuf;
  thread_local std::vector<int32_t> cbuf;
  thread_local std::vector<const uint8_t*> vrows;
  kbuf.resize(static_cast<size_t>(d * KT));
  sbuf.resize(static_cast<size_t>(rows) * KT);
  mbuf.assign(static_cast<size_t>(rows), -std::numeric_limits<float>::infinity());
  lbuf.assign(static_cast<size_t>(rows), 0.f);
  abuf.resize(static_cast<size_t>(rows));
  cbuf.resize(static_cast<size_t>(rows));
  vrows.resize(KT);
  int32_t max_vis = 0;
  for (int32_t r = 0; r < rows; r++) max_vis = std::max(max_vis, vis[r]);
  std::fill(out, out + static_cast<int64_t>(rows) * d, 0.f);
  const typename V::reg scale_v = V::set1(scale);
  for (int32_t j0 = 0; j0 < max_vis; j0 += KT) {
    const int32_t nk = std::min(KT, max_vis - j0), panels = (nk + PW - 1) / PW;
    // Scores s[r][j] = q[r] . k_j (scaled below), every row against every key of the tile.
    for (int32_t p = 0; p < panels; p++)
      pack_keys<DT>(kbase, stride, slots + j0 + p * PW, std::min(PW, nk - p * PW), d, kbuf.data() + p * d * PW);
    for (int32_t p = 0; p < panels; p++) {
      const float* panel = kbuf.data() + p * d * PW;
      int32_t r = 0;
      for (; r + V::PT <= rows; r += V::PT)
        panel_kernel<V::PT>(q + r * d, d, 0, d, panel, sbuf.data() + r * KT + p * PW, KT, PW, true);
      if (r < rows)
        panel_tail<V::PT - 1>(rows - r, q + r * d, d, 0, d, panel, sbuf.data() + r * KT + p * PW, KT, PW, true);
    }
    // Online softmax: row r sees the first c of the tile's keys.
    for (int32_t r = 0; r < rows; r++) {
      float* s = sbuf.data() + static_cast<int64_t>(r) * KT;
      const int32_t c = std::max(0, std::min(nk, vis[r] - j0));
      cbuf[r] = c;
      if (c == 0) {
        abuf[r] = 1.f;
        std::fill(s, s + nk, 0.f);
        continue;
      }
      typename V::reg mv = V::set1(-std::numeric_limits<float>::infinity());
      int32_t j = 0;
      for (; j + V::W <= c; j += V::W) {
        const typename V::reg x = V::mul(V::loadx(s, j), scale_v);
        V::storex(s, j, x);
        mv = V::max(mv, x);
      }
      float mx = std::max(mbuf[r], V::reduce_max(mv));
      for (; j < c; j++) mx = std::max(mx, s[j] *= scale);
      const float sum = exp_shifted(s, c, mx);
      std::fill(s + c, s + nk, 0.f);
      const float alpha = std::exp(mbuf[r] - mx);  // 0 on the row's first tile (m = -inf)
      abuf[r] = alpha;
      lbuf[r] = lbuf[r] * alpha + sum;
      mbuf[r] = mx;
    }
    // out[r] = alpha[r] * out[r] + p[r] . V_tile, AR rows at a time (only as many keys as the block's rows see).
    for (int32_t j = 0; j < nk; j++) vrows[j] = vbase + static_cast<int64_t>(slots[j0 + j]) * stride;
    int32_t r = 0;
    for (; r + V::AR <= rows; r += V::AR) {
      const int32_t nj = *std::max_element(cbuf.begin() + r, cbuf.begin() + r + V::AR);
      if (nj > 0)
        pv_rows<DT, V::AR>(vrows.data(), nj, sbuf.data() + static_cast<int64_t>(r) * KT, KT, abuf.data() + r,
                           out + r * d, d);
    }
    for (; r < rows; r++)
      if (cbuf[r] > 0)
        pv_rows<DT, 1>(vrows.data(), cbuf[r], sbuf.data() + static_cast<int64_t>(r) * KT, KT, abuf.data() + r,
                       out + r * d, d);
  }
  for (int32_t r = 0; r < rows; r++) {
    if (vis[r] <= 0) continue;
    const float inv = 1.0f / lbuf[r];
    float* o = out + static_cast<int64_t>(r) * d;
    for (int64_t k = 0; k < d; k++) o[k] *= inv;
  }
}

static void attention_tile_simd(ocr::DType dt, const uint8_t* kbase, const uint8_t* vbase, int64_t stride,
                                const int32_t* slots, const float* q, int32_t rows, const int32_t* vis, int64_t d,
                                float scale, float* out) {
  switch (dt) {
    case ocr::DType::F32:
      attention_tile_dt<ocr::DType::F32>(kbase, vbase, stride, slots, q, rows, vis, d, scale, out);
      break;
    case ocr::DType::F16:
      attention_tile_dt<ocr::DType::F16>(kbase, vbase, stride, slots, q, rows, vis, d, scale, out);
      break;
    default:
      attention_tile_dt<ocr::DType::BF16>(kbase, vbase, stride, slots, q, rows, vis, d, scale, out);
      break;
  }
}
