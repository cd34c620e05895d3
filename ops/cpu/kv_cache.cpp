// CPU implementation of kv_cache.h: aligned (huge-page advised) host storage for K/V rows.
#include "../kv_cache.h"

#include <algorithm>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ocr {

void* kv_alloc(size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t align = bytes >= kHuge ? kHuge : 64;
  const size_t rounded = (std::max<size_t>(bytes, 1) + align - 1) / align * align;  // aligned_alloc wants a multiple
  void* p = std::aligned_alloc(align, rounded);
  if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (align == kHuge) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP the pages stay 4 KB
#endif
  return p;
}

void KvLayer::grow(int64_t slots) {
  if (slots <= capacity) return;
  const size_t rb = row_bytes();
  KvBuffer nk(static_cast<size_t>(kv_heads * slots) * rb), nv(nk.size());
  for (int64_t h = 0; h < kv_heads; h++) {
    std::memcpy(nk.data() + static_cast<size_t>(h * slots) * rb, k.data() + offset(h, 0),
                static_cast<size_t>(capacity) * rb);
    std::memcpy(nv.data() + static_cast<size_t>(h * slots) * rb, v.data() + offset(h, 0),
                static_cast<size_t>(capacity) * rb);
  }
  k.swap(nk);
  v.swap(nv);
  capacity = slots;
}

}  // namespace ocr
