// Plain reference kernels (portable C++): the baseline on any CPU and the ground truth in op tests.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels.h"

namespace ocr {
namespace {

inline float load_elem(DType dt, const void* p, int64_t i) {
  switch (dt) {
    case DType::F32:
      return static_cast<const float*>(p)[i];
    case DType::F16:
      return f16_to_f32(static_cast<const uint16_t*>(p)[i]);
    case DType::BF16:
      return bf16_to_f32(static_cast<const uint16_t*>(p)[i]);
    default:
      return dequant_elem(dt, static_cast<const uint8_t*>(p), i);  // Q8_0, Q4_1 (weight rows only)
  }
}

float dot_ref(DType dt, const void* row, const float* x, int64_t len) {
  float s = 0.f;
  for (int64_t k = 0; k < len; k++) s += load_elem(dt, row, k) * x[k];
  return s;
}

void linear_rows_ref(const float* x, int64_t ldx, int64_t n, int64_t in, DType wdt, const void* w, int64_t o0,
                     int64_t o1, float* y, int64_t ldy) {
  const size_t row_bytes = dtype_row_bytes(wdt, in);
  for (int64_t o = o0; o < o1; o++) {
    const void* row = static_cast<const uint8_t*>(w) + static_cast<size_t>(o) * row_bytes;
    for (int64_t t = 0; t < n; t++) y[t * ldy + (o - o0)] = dot_ref(wdt, row, x + t * ldx, in);
  }
}

void axpy_ref(DType dt, float a, const void* row, float* y, int64_t len) {
  for (int64_t k = 0; k < len; k++) y[k] += a * load_elem(dt, row, k);
}

}  // namespace

void store_ref(DType dt, const float* x, void* row, int64_t len) {
  switch (dt) {
    case DType::F32:
      for (int64_t k = 0; k < len; k++) static_cast<float*>(row)[k] = x[k];
      break;
    case DType::F16:
      for (int64_t k = 0; k < len; k++) static_cast<uint16_t*>(row)[k] = f32_to_f16(x[k]);
      break;
    default:
      for (int64_t k = 0; k < len; k++) static_cast<uint16_t*>(row)[k] = f32_to_bf16(x[k]);
  }
}

namespace {

void scores_ref(DType dt, const uint8_t* base, int64_t stride, const int32_t* slots, int32_t n, const float* q,
                int64_t d, float scale, float* out) {
  for (int32_t j = 0; j < n; j++) out[j] = dot_ref(dt, base + slots[j] * stride, q, d) * scale;
}

void weighted_sum_ref(DType dt, const uint8_t* base, int64_t stride, const int32_t* slots, int32_t n, const float* p,
                      int64_t d, float* out) {
  for (int32_t j = 0; j < n; j++) axpy_ref(dt, p[j], base + slots[j] * stride, out, d);
}

void silu_mul_ref(const float* g, const float* u, float* h, int64_t len) {
  for (int64_t i = 0; i < len; i++) {
    const float a = g[i];
    h[i] = (a / (1.0f + std::exp(-a))) * u[i];
  }
}

void softmax_ref(float* x, int32_t n) {
  float mx = -std::numeric_limits<float>::infinity();
  for (int32_t j = 0; j < n; j++) mx = std::max(mx, x[j]);
  float sum = 0.f;
  for (int32_t j = 0; j < n; j++) sum += (x[j] = std::exp(x[j] - mx));
  const float inv = 1.0f / sum;
  for (int32_t j = 0; j < n; j++) x[j] *= inv;
}

// The blocked prefill attention in plain loops: the same key tiles and online softmax as the SIMD sets, key tile
// outermost so a tile's rows are read from cache by every query row.
void attention_tile_ref(DType dt, const uint8_t* kbase, const uint8_t* vbase, int64_t stride, const int32_t* slots,
                        const float* q, int32_t rows, const int32_t* vis, int64_t d, float scale, float* out) {
  constexpr int32_t KT = kAttentionKeyTile;
  std::vector<float> m(static_cast<size_t>(rows), -std::numeric_limits<float>::infinity()),
      l(static_cast<size_t>(rows), 0.f), s(KT);
  int32_t max_vis = 0;
  for (int32_t r = 0; r < rows; r++) max_vis = std::max(max_vis, vis[r]);
  std::fill(out, out + static_cast<int64_t>(rows) * d, 0.f);
  for (int32_t j0 = 0; j0 < max_vis; j0 += KT) {
    for (int32_t r = 0; r < rows; r++) {
      const int32_t c = std::max(0, std::min(KT, vis[r] - j0));
      if (c == 0) continue;
      const float* qr = q + static_cast<int64_t>(r) * d;
      float* o = out + static_cast<int64_t>(r) * d;
      float mx = m[r];
      for (int32_t j = 0; j < c; j++)
        mx = std::max(mx, s[j] = dot_ref(dt, kbase + static_cast<int64_t>(slots[j0 + j]) * stride, qr, d) * scale);
      const float alpha = std::exp(m[r] - mx);
      for (int64_t k = 0; k < d; k++) o[k] *= alpha;
      float sum = 0.f;
      for (int32_t j = 0; j < c; j++) {
        const float p = std::exp(s[j] - mx);
        sum += p;
        axpy_ref(dt, p, vbase + static_cast<int64_t>(slots[j0 + j]) * stride, o, d);
      }
      l[r] = l[r] * alpha + sum;
      m[r] = mx;
    }
  }
  for (int32_t r = 0; r < rows; r++) {
    if (vis[r] <= 0) continue;
    const float inv = 1.0f / l[r];
    for (int64_t k = 0; k < d; k++) out[static_cast<int64_t>(r) * d + k] *= inv;
  }
}

const Kernels kRef{"ref",      linear_rows_ref,  dot_ref,     axpy_ref,     store_ref,
                   scores_ref, weighted_sum_ref, softmax_ref, silu_mul_ref, attention_tile_ref};

}  // namespace

const Kernels& kernels_ref() { return kRef; }

}  // namespace ocr
