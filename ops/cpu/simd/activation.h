// ISA-generic SIMD bodies, one op per file, included (in the order linear, vector, activation, attention) by
// kernels_avx2.cpp and kernels_avx512.cpp after they define `V` (a vector trait: W lanes, zero, loadx, loadw<DT>, fma,
// reduce, masked tails).
// softmax and silu_mul on the polynomial exp (exp_shifted is shared with blocked attention).
#pragma once

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
