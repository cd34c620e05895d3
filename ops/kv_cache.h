// Op contract: the K/V cache of one layer, the storage attention (attention.h) reads through slot lists.
// CPU implementation: cpu/kv_cache.cpp.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "common.h"

namespace ocr {

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
  bool operator==(const KvAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const KvAllocator<U>&) const {
    return false;
  }
};
void* kv_alloc(size_t bytes);
template <typename T>
T* KvAllocator<T>::allocate(size_t n) {
  return static_cast<T*>(kv_alloc(n * sizeof(T)));
}
using KvBuffer = std::vector<uint8_t, KvAllocator<uint8_t>>;

// Key/value cache of one layer, head-major: k, v are [kv_heads, capacity, head_dim] in `dtype` (f32, f16 or bf16), so
// the keys one head scans are contiguous (a query streams them instead of gathering strided pieces).
struct KvLayer {
  DType dtype = DType::F32;
  int64_t kv_heads = 0, head_dim = 0, capacity = 0;
  KvBuffer k, v;
  size_t row_bytes() const { return static_cast<size_t>(head_dim) * dtype_size(dtype); }
  size_t offset(int64_t head, int64_t slot) const {
    return (static_cast<size_t>(head) * capacity + slot) * row_bytes();
  }
  // Grows to `slots` slots per head, keeping every stored row at its slot.
  void grow(int64_t slots);
};

}  // namespace ocr
