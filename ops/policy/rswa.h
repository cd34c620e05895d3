// Attention policy for generated entries: full (window 0, every generated entry stays) or R-SWA (window n > 0: the
// last n generated entries, the current one included, in a ring of n slots per layer). Extended and visual entries
// are attended until retired whatever the window. The session asks the policy which generated entry gives up its
// slot before a new one is fed; the list of keys a step attends is then simply the live entries.
#pragma once
#include <cstdint>
#include <deque>

namespace ocr {

class RswaWindow {
 public:
  explicit RswaWindow(int window) : window_(window) {}
  bool on() const { return window_ > 0; }
  int window() const { return window_; }
  // Before a generated entry is appended: the position of the generated entry falling out of the window (its slot
  // goes to the new one), or -1 when none does.
  int64_t evict();
  // A generated entry was appended at `position`.
  void admit(int64_t position);
  // A generated entry at `position` was retired by the caller.
  void forget(int64_t position);

 private:
  int window_;
  std::deque<int64_t> ring_;  // generated positions in the window, oldest first
};

}  // namespace ocr
