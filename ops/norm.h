// Op contracts: normalisation and rotary position embedding. Activations are f32 on every backend.
// CPU implementation: cpu/norm.cpp.
#pragma once
#include <cstdint>

namespace ocr {

// y[t] = w * (x[t] / sqrt(mean(x[t]^2) + eps)), all f32. x, y: [n, dim] (may alias).
void rms_norm(const float* x, const float* w, float* y, int64_t n, int64_t dim, float eps);

// Rotate-half RoPE in place. x: [n, heads, head_dim]; positions: [n].
// For i < d/2 with f_i = theta^(-2i/d): (x_i, x_{i+d/2}) <- (x_i cos - x_{i+d/2} sin, x_{i+d/2} cos + x_i sin), angle =
// pos * f_i.
void rope(float* x, const int64_t* positions, int64_t n, int64_t heads, int64_t head_dim, float theta);

}  // namespace ocr
