// ISA-generic kernel bodies, included by kernels_avx2.cpp and kernels_avx512.cpp after they define
// `V` (a vector trait: W lanes, zero, loadx, loadw<DT>, fma, reduce, masked tails).
// Register blocking: TT tokens x RR weight rows share each loaded vector.

template <ocr::DType DT, int TT, int RR>
static inline void linear_block(const float* x, int64_t ldx, int64_t in, const uint8_t* w, size_t row_bytes,
                                float* y, int64_t ldy) {
  typename V::reg acc[TT][RR];
  for (int t = 0; t < TT; t++)
    for (int r = 0; r < RR; r++) acc[t][r] = V::zero();
  int64_t k = 0;
  for (; k + V::W <= in; k += V::W) {
    typename V::reg wv[RR];
    for (int r = 0; r < RR; r++) wv[r] = V::template loadw<DT>(w + r * row_bytes, k);
    for (int t = 0; t < TT; t++) {
      typename V::reg xv = V::loadx(x + t * ldx, k);
      for (int r = 0; r < RR; r++) acc[t][r] = V::fma(xv, wv[r], acc[t][r]);
    }
  }
  if (k < in) {
    const int64_t rem = in - k;
    typename V::reg wv[RR];
    for (int r = 0; r < RR; r++) wv[r] = V::template loadw_tail<DT>(w + r * row_bytes, k, rem);
    for (int t = 0; t < TT; t++) {
      typename V::reg xv = V::loadx_tail(x + t * ldx, k, rem);
      for (int r = 0; r < RR; r++) acc[t][r] = V::fma(xv, wv[r], acc[t][r]);
    }
  }
  for (int t = 0; t < TT; t++)
    for (int r = 0; r < RR; r++) y[t * ldy + r] = V::reduce(acc[t][r]);
}

template <ocr::DType DT, int TT>
static inline void linear_rows_tt(const float* x, int64_t ldx, int64_t in, const uint8_t* w, size_t row_bytes,
                                  int64_t rows, float* y, int64_t ldy) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) linear_block<DT, TT, 4>(x, ldx, in, w + r * row_bytes, row_bytes, y + r, ldy);
  switch (rows - r) {
    case 3: linear_block<DT, TT, 3>(x, ldx, in, w + r * row_bytes, row_bytes, y + r, ldy); break;
    case 2: linear_block<DT, TT, 2>(x, ldx, in, w + r * row_bytes, row_bytes, y + r, ldy); break;
    case 1: linear_block<DT, TT, 1>(x, ldx, in, w + r * row_bytes, row_bytes, y + r, ldy); break;
    default: break;
  }
}

template <ocr::DType DT>
static void linear_rows_dt(const float* x, int64_t ldx, int64_t n, int64_t in, const void* w, int64_t o0,
                           int64_t o1, float* y, int64_t ldy) {
  const size_t row_bytes = static_cast<size_t>(in) * ocr::dtype_size(DT);
  const uint8_t* wb = static_cast<const uint8_t*>(w) + static_cast<size_t>(o0) * row_bytes;
  // Token chunks keep their activations in L2 while this thread's weight rows stream by.
  constexpr int64_t kTokenChunk = 64;
  constexpr int64_t kRowChunk = 64;
  for (int64_t tc = 0; tc < n; tc += kTokenChunk) {
    const int64_t tn = std::min(kTokenChunk, n - tc);
    for (int64_t rc = 0; rc < o1 - o0; rc += kRowChunk) {
      const int64_t rn = std::min(kRowChunk, o1 - o0 - rc);
      int64_t t = 0;
      for (; t + V::TT <= tn; t += V::TT)
        linear_rows_tt<DT, V::TT>(x + (tc + t) * ldx, ldx, in, wb + rc * row_bytes, row_bytes, rn, y + (tc + t) * ldy + rc, ldy);
      for (; t < tn; t++)
        linear_rows_tt<DT, 1>(x + (tc + t) * ldx, ldx, in, wb + rc * row_bytes, row_bytes, rn, y + (tc + t) * ldy + rc, ldy);
    }
  }
}

// ---- Prefill (n >= kPackedMinTokens): weight panels packed to f32 [k][2W rows], activations broadcast. ----
// Each output element is one sequential FMA chain over k, whatever the panel, the row split or the token
// block it falls in, so results do not depend on the thread count.
constexpr int64_t kPackK = 256;  // k-block: a 2W x 256 f32 panel stays in L1

template <ocr::DType DT>
static inline float elem(const uint8_t* row, int64_t k) {
  if constexpr (DT == ocr::DType::F32) return reinterpret_cast<const float*>(row)[k];
  else if constexpr (DT == ocr::DType::F16) return ocr::f16_to_f32(reinterpret_cast<const uint16_t*>(row)[k]);
  else return ocr::bf16_to_f32(reinterpret_cast<const uint16_t*>(row)[k]);
}

template <ocr::DType DT>
static void pack_panel(const uint8_t* w, size_t row_bytes, int64_t rows_valid, int64_t k0, int64_t kc, float* buf) {
  constexpr int PW = 2 * V::W;
  for (int r = 0; r < PW; r++) {
    if (r < rows_valid) {
      const uint8_t* row = w + r * row_bytes;
      for (int64_t k = 0; k < kc; k++) buf[k * PW + r] = elem<DT>(row, k0 + k);
    } else {
      for (int64_t k = 0; k < kc; k++) buf[k * PW + r] = 0.f;
    }
  }
}

static inline typename V::reg load_rows(const float* p, int64_t j, int64_t rows_valid) {
  const int64_t r = rows_valid - j * V::W;
  if (r >= V::W) return V::loadx(p, j * V::W);
  if (r <= 0) return V::zero();
  return V::loadx_tail(p, j * V::W, r);
}

static inline void store_rows(float* p, int64_t j, int64_t rows_valid, typename V::reg v) {
  const int64_t r = rows_valid - j * V::W;
  if (r >= V::W) V::storex(p, j * V::W, v);
  else if (r > 0) V::storex_tail(p, j * V::W, r, v);
}

template <int TT>
static inline void panel_kernel(const float* x, int64_t ldx, int64_t k0, int64_t kc, const float* buf, float* y,
                                int64_t ldy, int64_t rows_valid, bool first) {
  constexpr int PW = 2 * V::W;
  typename V::reg acc[TT][2];
  for (int t = 0; t < TT; t++)
    for (int j = 0; j < 2; j++) acc[t][j] = first ? V::zero() : load_rows(y + t * ldy, j, rows_valid);
  const float* xk = x + k0;
  for (int64_t k = 0; k < kc; k++) {
    const typename V::reg w0 = V::loadx(buf + k * PW, 0), w1 = V::loadx(buf + k * PW, V::W);
    for (int t = 0; t < TT; t++) {
      const typename V::reg b = V::set1(xk[t * ldx + k]);
      acc[t][0] = V::fma(b, w0, acc[t][0]);
      acc[t][1] = V::fma(b, w1, acc[t][1]);
    }
  }
  for (int t = 0; t < TT; t++)
    for (int j = 0; j < 2; j++) store_rows(y + t * ldy, j, rows_valid, acc[t][j]);
}

template <int TT>
static inline void panel_tail(int64_t r, const float* x, int64_t ldx, int64_t k0, int64_t kc, const float* buf, float* y,
                              int64_t ldy, int64_t rows_valid, bool first) {
  if constexpr (TT >= 1) {
    if (r == TT) panel_kernel<TT>(x, ldx, k0, kc, buf, y, ldy, rows_valid, first);
    else panel_tail<TT - 1>(r, x, ldx, k0, kc, buf, y, ldy, rows_valid, first);
  }
}

template <ocr::DType DT>
static void linear_packed_dt(const float* x, int64_t ldx, int64_t n, int64_t in, const void* w, int64_t o0, int64_t o1,
                             float* y, int64_t ldy) {
  constexpr int PW = 2 * V::W;
  const size_t row_bytes = static_cast<size_t>(in) * ocr::dtype_size(DT);
  alignas(64) static thread_local float buf[kPackK * PW];
  const uint8_t* wb = static_cast<const uint8_t*>(w);
  for (int64_t k0 = 0; k0 < in; k0 += kPackK) {
    const int64_t kc = std::min(kPackK, in - k0);
    for (int64_t p0 = o0; p0 < o1; p0 += PW) {
      const int64_t rows_valid = std::min<int64_t>(PW, o1 - p0);
      pack_panel<DT>(wb + static_cast<size_t>(p0) * row_bytes, row_bytes, rows_valid, k0, kc, buf);
      float* yp = y + (p0 - o0);
      int64_t t = 0;
      for (; t + V::PT <= n; t += V::PT)
        panel_kernel<V::PT>(x + t * ldx, ldx, k0, kc, buf, yp + t * ldy, ldy, rows_valid, k0 == 0);
      if (t < n) panel_tail<V::PT - 1>(n - t, x + t * ldx, ldx, k0, kc, buf, yp + t * ldy, ldy, rows_valid, k0 == 0);
    }
  }
}

// Matrix-vector (decode): one row at a time is one sequential memory stream, the access pattern the
// hardware prefetchers follow best; four accumulators hide the FMA latency. The prefetchers stop at 4 KB page
// ends and a thread's own misses are few at a time (widening and FMAs fill the reorder window), so matvec_dt
// also prefetches the bytes kMatvecPrefetch ahead of the row it reads (never past its own rows). The hint is
// non-temporal: each weight is read once per step, and ~1 GB of them should not churn the caches.
constexpr int64_t kMatvecPrefetch = 2048;
template <ocr::DType DT>
static inline float dot4_dt(const uint8_t* w, const float* x, int64_t len) {
  typename V::reg a0 = V::zero(), a1 = V::zero(), a2 = V::zero(), a3 = V::zero();
  int64_t k = 0;
  for (; k + 4 * V::W <= len; k += 4 * V::W) {
    a0 = V::fma(V::loadx(x, k), V::template loadw<DT>(w, k), a0);
    a1 = V::fma(V::loadx(x, k + V::W), V::template loadw<DT>(w, k + V::W), a1);
    a2 = V::fma(V::loadx(x, k + 2 * V::W), V::template loadw<DT>(w, k + 2 * V::W), a2);
    a3 = V::fma(V::loadx(x, k + 3 * V::W), V::template loadw<DT>(w, k + 3 * V::W), a3);
  }
  for (; k + V::W <= len; k += V::W) a0 = V::fma(V::loadx(x, k), V::template loadw<DT>(w, k), a0);
  if (k < len) a1 = V::fma(V::loadx_tail(x, k, len - k), V::template loadw_tail<DT>(w, k, len - k), a1);
  return V::reduce(V::add(V::add(a0, a1), V::add(a2, a3)));
}

template <ocr::DType DT>
static void matvec_dt(const float* x, int64_t in, const void* w, int64_t o0, int64_t o1, float* y) {
  const size_t row_bytes = static_cast<size_t>(in) * ocr::dtype_size(DT);
  const uint8_t* wb = static_cast<const uint8_t*>(w);
  const uintptr_t end = reinterpret_cast<uintptr_t>(wb + static_cast<size_t>(o1) * row_bytes);
  uintptr_t next = (reinterpret_cast<uintptr_t>(wb + static_cast<size_t>(o0) * row_bytes) + kMatvecPrefetch) & ~uintptr_t{63};
  for (int64_t o = o0; o < o1; o++) {
    const uint8_t* row = wb + static_cast<size_t>(o) * row_bytes;
    const uintptr_t upto = std::min(end, reinterpret_cast<uintptr_t>(row) + row_bytes + kMatvecPrefetch);
    for (; next < upto; next += 64) _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_NTA);
    y[o - o0] = dot4_dt<DT>(row, x, in);
  }
}

static void linear_rows_simd(const float* x, int64_t ldx, int64_t n, int64_t in, ocr::DType wdt, const void* w,
                             int64_t o0, int64_t o1, float* y, int64_t ldy) {
  if (n == 1) {
    switch (wdt) {
      case ocr::DType::F32: matvec_dt<ocr::DType::F32>(x, in, w, o0, o1, y); break;
      case ocr::DType::F16: matvec_dt<ocr::DType::F16>(x, in, w, o0, o1, y); break;
      default: matvec_dt<ocr::DType::BF16>(x, in, w, o0, o1, y); break;
    }
    return;
  }
  if (n >= kPackedMinTokens) {
    switch (wdt) {
      case ocr::DType::F32: linear_packed_dt<ocr::DType::F32>(x, ldx, n, in, w, o0, o1, y, ldy); break;
      case ocr::DType::F16: linear_packed_dt<ocr::DType::F16>(x, ldx, n, in, w, o0, o1, y, ldy); break;
      default: linear_packed_dt<ocr::DType::BF16>(x, ldx, n, in, w, o0, o1, y, ldy); break;
    }
    return;
  }
  switch (wdt) {
    case ocr::DType::F32: linear_rows_dt<ocr::DType::F32>(x, ldx, n, in, w, o0, o1, y, ldy); break;
    case ocr::DType::F16: linear_rows_dt<ocr::DType::F16>(x, ldx, n, in, w, o0, o1, y, ldy); break;
    default: linear_rows_dt<ocr::DType::BF16>(x, ldx, n, in, w, o0, o1, y, ldy); break;
  }
}

// A row's dot product with q, left as a vector (two accumulators: even and odd W-blocks of the row); `dot` reduces it,
// decode attention's scores reduce eight at once.
template <ocr::DType DT>
static inline typename V::reg row_dot(const uint8_t* row, const float* q, int64_t d) {
  typename V::reg a0 = V::zero(), a1 = V::zero();
  int64_t k = 0;
  for (; k + 2 * V::W <= d; k += 2 * V::W) {
    a0 = V::fma(V::template loadw<DT>(row, k), V::loadx(q, k), a0);
    a1 = V::fma(V::template loadw<DT>(row, k + V::W), V::loadx(q, k + V::W), a1);
  }
  if (k + V::W <= d) {
    a0 = V::fma(V::template loadw<DT>(row, k), V::loadx(q, k), a0);
    k += V::W;
  }
  if (k < d) a1 = V::fma(V::template loadw_tail<DT>(row, k, d - k), V::loadx_tail(q, k, d - k), a1);
  return V::add(a0, a1);
}

template <ocr::DType DT>
static float dot_dt(const void* row, const float* x, int64_t len) {
  return V::reduce(row_dot<DT>(static_cast<const uint8_t*>(row), x, len));
}

static float dot_simd(ocr::DType dt, const void* row, const float* x, int64_t len) {
  switch (dt) {
    case ocr::DType::F32: return dot_dt<ocr::DType::F32>(row, x, len);
    case ocr::DType::F16: return dot_dt<ocr::DType::F16>(row, x, len);
    default: return dot_dt<ocr::DType::BF16>(row, x, len);
  }
}

template <ocr::DType DT>
static void axpy_dt(float a, const void* row, float* y, int64_t len) {
  const uint8_t* w = static_cast<const uint8_t*>(row);
  typename V::reg av = V::set1(a);
  int64_t k = 0;
  for (; k + V::W <= len; k += V::W) V::storex(y, k, V::fma(av, V::template loadw<DT>(w, k), V::loadx(y, k)));
  if (k < len) V::storex_tail(y, k, len - k, V::fma(av, V::template loadw_tail<DT>(w, k, len - k), V::loadx_tail(y, k, len - k)));
}

static void axpy_simd(ocr::DType dt, float a, const void* row, float* y, int64_t len) {
  switch (dt) {
    case ocr::DType::F32: axpy_dt<ocr::DType::F32>(a, row, y, len); break;
    case ocr::DType::F16: axpy_dt<ocr::DType::F16>(a, row, y, len); break;
    default: axpy_dt<ocr::DType::BF16>(a, row, y, len); break;
  }
}

static float sum_simd(const float* x, int64_t len) {
  typename V::reg a0 = V::zero(), a1 = V::zero(), a2 = V::zero(), a3 = V::zero();
  int64_t k = 0;
  for (; k + 4 * V::W <= len; k += 4 * V::W) {
    a0 = V::add(a0, V::loadx(x, k));
    a1 = V::add(a1, V::loadx(x, k + V::W));
    a2 = V::add(a2, V::loadx(x, k + 2 * V::W));
    a3 = V::add(a3, V::loadx(x, k + 3 * V::W));
  }
  for (; k + V::W <= len; k += V::W) a0 = V::add(a0, V::loadx(x, k));
  if (k < len) a1 = V::add(a1, V::loadx_tail(x, k, len - k));
  return V::reduce(V::add(V::add(a0, a1), V::add(a2, a3)));
}

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
    for (int32_t i = j + kPrefetchKeys; i < std::min(n, j + kPrefetchKeys + 8); i++) prefetch_row(base + slots[i] * stride, row_bytes);
    typename V::reg acc[8];
    for (int i = 0; i < 8; i++) acc[i] = row_dot<DT>(base + slots[j + i] * stride, q, d);
    V::reduce8_store(acc, out + j);
    for (int i = 0; i < 8; i++) out[j + i] *= scale;
  }
  for (; j < n; j++) out[j] = V::reduce(row_dot<DT>(base + slots[j] * stride, q, d)) * scale;
}

static void scores_simd(ocr::DType dt, const uint8_t* base, int64_t stride, const int32_t* slots, int32_t n, const float* q,
                        int64_t d, float scale, float* out) {
  switch (dt) {
    case ocr::DType::F32: scores_dt<ocr::DType::F32>(base, stride, slots, n, q, d, scale, out); break;
    case ocr::DType::F16: scores_dt<ocr::DType::F16>(base, stride, slots, n, q, d, scale, out); break;
    default: scores_dt<ocr::DType::BF16>(base, stride, slots, n, q, d, scale, out); break;
  }
}

// Four value rows per pass over `out`: the same FMA chain per element as four single axpys, a quarter of
// the loads and stores of `out`; rows kPrefetchKeys ahead are prefetched.
template <ocr::DType DT>
static void weighted_sum_dt(const uint8_t* base, int64_t stride, const int32_t* slots, int32_t n, const float* p, int64_t d,
                            float* out) {
  const int64_t row_bytes = d * static_cast<int64_t>(ocr::dtype_size(DT));
  int32_t j = 0;
  for (; j + 4 <= n; j += 4) {
    for (int32_t i = j + kPrefetchKeys; i < std::min(n, j + kPrefetchKeys + 4); i++) prefetch_row(base + slots[i] * stride, row_bytes);
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
    case ocr::DType::F32: weighted_sum_dt<ocr::DType::F32>(base, stride, slots, n, p, d, out); break;
    case ocr::DType::F16: weighted_sum_dt<ocr::DType::F16>(base, stride, slots, n, p, d, out); break;
    default: weighted_sum_dt<ocr::DType::BF16>(base, stride, slots, n, p, d, out); break;
  }
}

// x[0..n) <- exp(x - mx) (polynomial), returning their sum: the step softmax and the blocked attention tile share.
static float exp_shifted(float* x, int32_t n, float mx) {
  const typename V::reg mv = V::set1(mx);
  typename V::reg s = V::zero();
  int32_t k = 0;
  for (; k + V::W <= n; k += V::W) {
    const typename V::reg e = V::exp(V::sub(V::loadx(x, k), mv));
    V::storex(x, k, e);
    s = V::add(s, e);
  }
  if (k < n) {
    const typename V::reg e = V::keep_tail(V::exp(V::sub(V::loadx_tail(x, k, n - k), mv)), n - k);
    V::storex_tail(x, k, n - k, e);
    s = V::add(s, e);
  }
  return V::reduce(s);
}

static void silu_mul_simd(const float* g, const float* u, float* h, int64_t len) {
  const auto silu = [](typename V::reg a) { return V::div(a, V::add(V::set1(1.0f), V::exp(V::sub(V::zero(), a)))); };
  int64_t k = 0;
  for (; k + V::W <= len; k += V::W) V::storex(h, k, V::mul(silu(V::loadx(g, k)), V::loadx(u, k)));
  if (k < len) V::storex_tail(h, k, len - k, V::mul(silu(V::loadx_tail(g, k, len - k)), V::loadx_tail(u, k, len - k)));
}

// x <- softmax(x): max, exp (polynomial) and sum, scale — vectorised.
static void softmax_simd(float* x, int32_t n) {
  if (n <= 0) return;
  float mx = x[0];
  int32_t k = 0;
  if (n >= V::W) {
    typename V::reg m = V::loadx(x, 0);
    for (k = V::W; k + V::W <= n; k += V::W) m = V::max(m, V::loadx(x, k));
    mx = V::reduce_max(m);
  }
  for (; k < n; k++) mx = std::max(mx, x[k]);
  const typename V::reg inv = V::set1(1.0f / exp_shifted(x, n, mx));
  for (k = 0; k + V::W <= n; k += V::W) V::storex(x, k, V::mul(V::loadx(x, k), inv));
  if (k < n) V::storex_tail(x, k, n - k, V::mul(V::loadx_tail(x, k, n - k), inv));
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

// o[r][k0 .. k0 + DC*W) <- alpha[r] * o[r][..] + sum_{j < nj} p[r][j] * v_j[..] for RB rows; TAIL: one masked vector of rem.
template <ocr::DType DT, int RB, int DC, bool TAIL>
static inline void pv_block(const uint8_t* const* vrows, int32_t nj, const float* p, int64_t ldp, const float* alpha, float* o,
                            int64_t d, int64_t k0, int64_t rem) {
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
      if (TAIL) V::storex_tail(o + r * d, k0, rem, acc[r][c]);
      else V::storex(o + r * d, k0 + c * V::W, acc[r][c]);
    }
}

template <ocr::DType DT, int RB>
static inline void pv_rows(const uint8_t* const* vrows, int32_t nj, const float* p, int64_t ldp, const float* alpha, float* o, int64_t d) {
  int64_t k = 0;
  for (; k + 2 * V::W <= d; k += 2 * V::W) pv_block<DT, RB, 2, false>(vrows, nj, p, ldp, alpha, o, d, k, 0);
  for (; k + V::W <= d; k += V::W) pv_block<DT, RB, 1, false>(vrows, nj, p, ldp, alpha, o, d, k, 0);
  if (k < d) pv_block<DT, RB, 1, true>(vrows, nj, p, ldp, alpha, o, d, k, d - k);
}

template <ocr::DType DT>
static void attention_tile_dt(const uint8_t* kbase, const uint8_t* vbase, int64_t stride, const int32_t* slots, const float* q,
                              int32_t rows, const int32_t* vis, int64_t d, float scale, float* out) {
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
    for (int32_t p = 0; p < panels; p++) pack_keys<DT>(kbase, stride, slots + j0 + p * PW, std::min(PW, nk - p * PW), d, kbuf.data() + p * d * PW);
    for (int32_t p = 0; p < panels; p++) {
      const float* panel = kbuf.data() + p * d * PW;
      int32_t r = 0;
      for (; r + V::PT <= rows; r += V::PT) panel_kernel<V::PT>(q + r * d, d, 0, d, panel, sbuf.data() + r * KT + p * PW, KT, PW, true);
      if (r < rows) panel_tail<V::PT - 1>(rows - r, q + r * d, d, 0, d, panel, sbuf.data() + r * KT + p * PW, KT, PW, true);
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
      if (nj > 0) pv_rows<DT, V::AR>(vrows.data(), nj, sbuf.data() + static_cast<int64_t>(r) * KT, KT, abuf.data() + r, out + r * d, d);
    }
    for (; r < rows; r++)
      if (cbuf[r] > 0) pv_rows<DT, 1>(vrows.data(), cbuf[r], sbuf.data() + static_cast<int64_t>(r) * KT, KT, abuf.data() + r, out + r * d, d);
  }
  for (int32_t r = 0; r < rows; r++) {
    if (vis[r] <= 0) continue;
    const float inv = 1.0f / lbuf[r];
    float* o = out + static_cast<int64_t>(r) * d;
    for (int64_t k = 0; k < d; k++) o[k] *= inv;
  }
}

static void attention_tile_simd(ocr::DType dt, const uint8_t* kbase, const uint8_t* vbase, int64_t stride, const int32_t* slots,
                                const float* q, int32_t rows, const int32_t* vis, int64_t d, float scale, float* out) {
  switch (dt) {
    case ocr::DType::F32: attention_tile_dt<ocr::DType::F32>(kbase, vbase, stride, slots, q, rows, vis, d, scale, out); break;
    case ocr::DType::F16: attention_tile_dt<ocr::DType::F16>(kbase, vbase, stride, slots, q, rows, vis, d, scale, out); break;
    default: attention_tile_dt<ocr::DType::BF16>(kbase, vbase, stride, slots, q, rows, vis, d, scale, out); break;
  }
}
