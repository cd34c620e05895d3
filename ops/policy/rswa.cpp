// R-SWA's ring of generated positions.
#include "rswa.h"

#include <algorithm>

namespace ocr {

int64_t RswaWindow::evict() {
  if (!on() || static_cast<int>(ring_.size()) < window_) return -1;
  const int64_t p = ring_.front();
  ring_.pop_front();
  return p;
}

void RswaWindow::admit(int64_t position) {
  if (on()) ring_.push_back(position);
}

void RswaWindow::forget(int64_t position) {
  auto it = std::find(ring_.begin(), ring_.end(), position);
  if (it != ring_.end()) ring_.erase(it);
}

}  // namespace ocr
