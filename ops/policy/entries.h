// What an attention policy sees of the cache: one entry per position ever appended, its kind and its slot.
#pragma once
#include <cstdint>

namespace ocr {

enum class EntryKind : uint8_t { Extended = 0, Visual = 1, Generated = 2 };

struct CacheEntry {
  EntryKind kind;
  int32_t slot;  // -1 once retired or out of the window
};

}  // namespace ocr
