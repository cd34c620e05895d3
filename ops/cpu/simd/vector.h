// ISA-generic SIMD bodies, one op per file, included (in the order linear, vector, activation, attention) by
// kernels_avx2.cpp and kernels_avx512.cpp after they define `V` (a vector trait: W lanes, zero, loadx, loadw<DT>, fma,
// reduce, masked tails).
// dot and axpy over one row in any stored dtype (row_dot is shared with decode attention's scores).
#pragma once

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
    case ocr::DType::F32:
      return dot_dt<ocr::DType::F32>(row, x, len);
    case ocr::DType::F16:
      return dot_dt<ocr::DType::F16>(row, x, len);
    default:
      return dot_dt<ocr::DType::BF16>(row, x, len);
  }
}

template <ocr::DType DT>
static void axpy_dt(float a, const void* row, float* y, int64_t len) {
  const uint8_t* w = static_cast<const uint8_t*>(row);
  typename V::reg av = V::set1(a);
  int64_t k = 0;
  for (; k + V::W <= len; k += V::W) V::storex(y, k, V::fma(av, V::template loadw<DT>(w, k), V::loadx(y, k)));
  if (k < len)
    V::storex_tail(y, k, len - k, V::fma(av, V::template loadw_tail<DT>(w, k, len - k), V::loadx_tail(y, k, len - k)));
}

static void axpy_simd(ocr::DType dt, float a, const void* row, float* y, int64_t len) {
  switch (dt) {
    case ocr::DType::F32:
      axpy_dt<ocr::DType::F32>(a, row, y, len);
      break;
    case ocr::DType::F16:
      axpy_dt<ocr::DType::F16>(a, row, y, len);
      break;
    default:
      axpy_dt<ocr::DType::BF16>(a, row, y, len);
      break;
  }
}
