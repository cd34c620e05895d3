// CPU implementation of norm.h: RMSNorm and rotate-half RoPE in plain f32 loops.
#include "../norm.h"

#include <cmath>
#include <vector>

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

}  // namespace ocr
