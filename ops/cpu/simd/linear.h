// ISA-generic SIMD bodies, one op per file, included (in the order linear, vector, activation, attention) by
// kernels_avx2.cpp and kernels_avx512.cpp after they define `V` (a vector trait: W lanes, zero, loadx, loadw<DT>, fma,
// reduce, masked tails).
// linear_rows: register blocks (2 <= n < 32), packed f32 panels (n >= 32), row-streaming matrix-vector (n = 1).
#pragma once

// Register blocking: TT tokens x RR weight rows share each loaded vector.

template <ocr::DType DT, int TT, int RR>
static inline void linear_block(const float* x, int64_t ldx, int64_t in, const uint8_t* w, size_t row_bytes, float* y,
                                int64_t ldy) {
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
    case 3:
      linear_block<DT, TT, 3>(x, ldx, in, w + r * row_bytes, row_bytes, y + r, ldy);
      break;
    case 2:
      linear_block<DT, TT, 2>(x, ldx, in, w + r * row_bytes, row_bytes, y + r, ldy);
      break;
    case 1:
      linear_block<DT, TT, 1>(x, ldx, in, w + r * row_bytes, row_bytes, y + r, ldy);
      break;
    default:
      break;
  }
}

template <ocr::DType DT>
static void linear_rows_dt(const float* x, int64_t ldx, int64_t n, int64_t in, const void* w, int64_t o0, int64_t o1,
                           float* y, int64_t ldy) {
  const size_t row_bytes = ocr::dtype_row_bytes(DT, in);
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
        linear_rows_tt<DT, V::TT>(x + (tc + t) * ldx, ldx, in, wb + rc * row_bytes, row_bytes, rn,
                                  y + (tc + t) * ldy + rc, ldy);
      for (; t < tn; t++)
        linear_rows_tt<DT, 1>(x + (tc + t) * ldx, ldx, in, wb + rc * row_bytes, row_bytes, rn, y + (tc + t) * ldy + rc,
                              ldy);
    }
  }
}

// ---- Prefill (n >= kPackedMinTokens): weight panels packed to f32 [k][2W rows], activations broadcast. ----
// Each output element is one sequential FMA chain over k, whatever the panel, the row split or the token
// block it falls in, so results do not depend on the thread count.
constexpr int64_t kPackK = 256;  // k-block: a 2W x 256 f32 panel stays in L1

template <ocr::DType DT>
static inline float elem(const uint8_t* row, int64_t k) {
  if constexpr (DT == ocr::DType::F32)
    return reinterpret_cast<const float*>(row)[k];
  else if constexpr (DT == ocr::DType::F16)
    return ocr::f16_to_f32(reinterpret_cast<const uint16_t*>(row)[k]);
  else if constexpr (DT == ocr::DType::BF16)
    return ocr::bf16_to_f32(reinterpret_cast<const uint16_t*>(row)[k]);
  else
    return ocr::dequant_elem(DT, row, k);
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
  if (r >= V::W)
    V::storex(p, j * V::W, v);
  else if (r > 0)
    V::storex_tail(p, j * V::W, r, v);
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
static inline void panel_tail(int64_t r, const float* x, int64_t ldx, int64_t k0, int64_t kc, const float* buf,
                              float* y, int64_t ldy, int64_t rows_valid, bool first) {
  if constexpr (TT >= 1) {
    if (r == TT)
      panel_kernel<TT>(x, ldx, k0, kc, buf, y, ldy, rows_valid, first);
    else
      panel_tail<TT - 1>(r, x, ldx, k0, kc, buf, y, ldy, rows_valid, first);
  }
}

template <ocr::DType DT>
static void linear_packed_dt(const float* x, int64_t ldx, int64_t n, int64_t in, const void* w, int64_t o0, int64_t o1,
                             float* y, int64_t ldy) {
  constexpr int PW = 2 * V::W;
  const size_t row_bytes = ocr::dtype_row_bytes(DT, in);
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
  const size_t row_bytes = ocr::dtype_row_bytes(DT, in);
  const uint8_t* wb = static_cast<const uint8_t*>(w);
  const uintptr_t end = reinterpret_cast<uintptr_t>(wb + static_cast<size_t>(o1) * row_bytes);
  uintptr_t next =
      (reinterpret_cast<uintptr_t>(wb + static_cast<size_t>(o0) * row_bytes) + kMatvecPrefetch) & ~uintptr_t{63};
  for (int64_t o = o0; o < o1; o++) {
    const uint8_t* row = wb + static_cast<size_t>(o) * row_bytes;
    const uintptr_t upto = std::min(end, reinterpret_cast<uintptr_t>(row) + row_bytes + kMatvecPrefetch);
    for (; next < upto; next += 64) _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_NTA);
    y[o - o0] = dot4_dt<DT>(row, x, in);
  }
}

// Quantised matrix-vector (decode): per 32-weight block the q.x partial sum in f32, then one FMA with the block's scale
// d into one of two accumulators (even and odd blocks); Q4_1 adds m times the block's sum of x, the sums computed once
// per call. One multiply per block instead of one per weight; each output is still one fixed order of operations.
template <ocr::DType DT>
static inline float dotq(const uint8_t* row, const float* x, const float* xsum, int64_t in) {
  constexpr size_t BB = DT == ocr::DType::Q8_0 ? ocr::kQ8_0BlockBytes : ocr::kQ4_1BlockBytes;
  constexpr int C = static_cast<int>(ocr::kQuantBlock) / V::W;
  typename V::reg acc0 = V::zero(), acc1 = V::zero();
  float macc = 0.f;
  const int64_t nb = in / ocr::kQuantBlock;
  for (int64_t b = 0; b < nb; b++) {
    const uint8_t* blk = row + static_cast<size_t>(b) * BB;
    const float* xb = x + b * ocr::kQuantBlock;
    typename V::reg p = V::zero();
    for (int c = 0; c < C; c++) {
      if constexpr (DT == ocr::DType::Q8_0)
        p = V::fma(V::loadx(xb, c * V::W), V::q8(blk + 2 + c * V::W), p);
      else
        p = V::fma(V::loadx(xb, c * V::W), V::q4(blk + 4 + (c * V::W) % 16, c * V::W >= 16), p);
    }
    const typename V::reg d = V::set1(V::f16(blk));
    if (b & 1)
      acc1 = V::fma(d, p, acc1);
    else
      acc0 = V::fma(d, p, acc0);
    if constexpr (DT == ocr::DType::Q4_1) macc += V::f16(blk + 2) * xsum[b];
  }
  return V::reduce(V::add(acc0, acc1)) + macc;
}

template <ocr::DType DT>
static void matvec_q(const float* x, int64_t in, const void* w, int64_t o0, int64_t o1, float* y) {
  const size_t row_bytes = ocr::dtype_row_bytes(DT, in);
  thread_local std::vector<float> xsum;
  if constexpr (DT == ocr::DType::Q4_1) {
    xsum.resize(static_cast<size_t>(in / ocr::kQuantBlock));
    for (int64_t b = 0; b < in / ocr::kQuantBlock; b++) {
      float s = 0.f;
      for (int64_t j = 0; j < ocr::kQuantBlock; j++) s += x[b * ocr::kQuantBlock + j];
      xsum[static_cast<size_t>(b)] = s;
    }
  }
  const uint8_t* wb = static_cast<const uint8_t*>(w);
  const uintptr_t end = reinterpret_cast<uintptr_t>(wb + static_cast<size_t>(o1) * row_bytes);
  uintptr_t next =
      (reinterpret_cast<uintptr_t>(wb + static_cast<size_t>(o0) * row_bytes) + kMatvecPrefetch) & ~uintptr_t{63};
  for (int64_t o = o0; o < o1; o++) {
    const uint8_t* row = wb + static_cast<size_t>(o) * row_bytes;
    const uintptr_t upto = std::min(end, reinterpret_cast<uintptr_t>(row) + row_bytes + kMatvecPrefetch);
    for (; next < upto; next += 64) _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_NTA);
    y[o - o0] = dotq<DT>(row, x, xsum.data(), in);
  }
}

template <ocr::DType DT>
static void linear_rows_of(const float* x, int64_t ldx, int64_t n, int64_t in, const void* w, int64_t o0, int64_t o1,
                           float* y, int64_t ldy) {
  if (n == 1) {
    if constexpr (ocr::dtype_is_quantized(DT)) {
      if (!V::matvec_int8(DT, x, in, w, o0, o1, y)) matvec_q<DT>(x, in, w, o0, o1, y);
    } else
      matvec_dt<DT>(x, in, w, o0, o1, y);
  } else if (n >= kPackedMinTokens) {
    linear_packed_dt<DT>(x, ldx, n, in, w, o0, o1, y, ldy);
  } else {
    linear_rows_dt<DT>(x, ldx, n, in, w, o0, o1, y, ldy);
  }
}

static void linear_rows_simd(const float* x, int64_t ldx, int64_t n, int64_t in, ocr::DType wdt, const void* w,
                             int64_t o0, int64_t o1, float* y, int64_t ldy) {
  switch (wdt) {
    case ocr::DType::F32:
      linear_rows_of<ocr::DType::F32>(x, ldx, n, in, w, o0, o1, y, ldy);
      break;
    case ocr::DType::F16:
      linear_rows_of<ocr::DType::F16>(x, ldx, n, in, w, o0, o1, y, ldy);
      break;
    case ocr::DType::Q8_0:
      linear_rows_of<ocr::DType::Q8_0>(x, ldx, n, in, w, o0, o1, y, ldy);
      break;
    case ocr::DType::Q4_1:
      linear_rows_of<ocr::DType::Q4_1>(x, ldx, n, in, w, o0, o1, y, ldy);
      break;
    default:
      linear_rows_of<ocr::DType::BF16>(x, ldx, n, in, w, o0, o1, y, ldy);
      break;
  }
}
