// Diagnostics: with OCR_DECODE_PROFILE set (non-empty, not "0"), decode steps time their phases (wall clock on the
// calling thread) and Session::generate prints the mean per step to stderr when it returns. Off by default; costs one
// clock read per phase when on.
#pragma once
#include <chrono>
#include <cstdint>

namespace ocr {

struct DecodeProfile {
  enum Phase {
    Norms,
    Qkv,
    Attention,
    O,
    Router,
    Routing,
    ExpertUp,
    SiluMul,
    ExpertDown,
    Combine,
    Dense,
    LmHead,
    kPhases
  };
  double seconds[kPhases] = {};
  int64_t steps = 0;
  int64_t passes = 0;  // parallel linear passes
};

bool decode_profile_on();
DecodeProfile& decode_profile();
// Prints the means per step since the last report to stderr and starts over.
void decode_profile_report();

// Adds the time since the previous mark to a phase (when on and `active`).
class PhaseTimer {
 public:
  explicit PhaseTimer(bool active) : on_(active && decode_profile_on()) {
    if (on_) t_ = std::chrono::steady_clock::now();
  }
  void mark(DecodeProfile::Phase p) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    decode_profile().seconds[p] += std::chrono::duration<double>(now - t_).count();
    t_ = now;
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point t_;
};

}  // namespace ocr
