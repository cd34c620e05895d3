// A decoding session: the KV cache with per-entry kinds, the attention policy, extend / retire / generate.
#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "decoder.h"
#include "kv_cache.h"
#include "policy/entries.h"
#include "policy/focal.h"
#include "policy/rswa.h"

namespace ocr {

struct SessionOptions {
  DType kv_dtype = DType::F32;
  // Attention policy for generated entries: 0 = full (all of them); n > 0 = R-SWA, the last n generated
  // entries including the current one (a ring of n slots per layer). Extended entries are always attended
  // until retired.
  int window = 0;
  // Focal pruning on decode steps (policy/focal.h); layers = 0 turns it off.
  using Focal = FocalOptions;
  Focal focal;
  bool record_fixations = false;  // keep, per focal decode step, the visual positions selected
};

struct AttentionStats {
  int64_t decode_steps = 0;      // single-entry forward passes (generated tokens fed back)
  double decode_seconds = 0;     // their whole time
  double attention_seconds = 0;  // their attention time: key lists, kernels and focal selection
};

struct NoRepeatRule {
  int n = 0;         // n-gram size; 0 disables
  int lookback = 0;  // look back over this many generated tokens (0 = all)
  std::vector<int32_t> exempt;
};

struct GenerateOptions {
  int max_tokens = 0;
  std::vector<int32_t> stop_tokens;
  NoRepeatRule no_repeat;
  // Run caps: empty, or one entry per vocabulary id; max_run[t] > 0 bans t once the last max_run[t] generated
  // tokens are all t (a token may not repeat more often in a row than that). 0 = no cap.
  std::vector<int32_t> max_run;
  // Tokens never generated in this call (a script the line does not use); each must be a vocabulary id.
  std::vector<int32_t> ban;
  // Record, for each generated token, its runner-ups (the best tokens the same step allowed besides it) and their
  // logit margins below it: Session::alternatives() after the call.
  bool alternatives = false;
};

// A generated token's runner-ups: the kCount tokens the step ranked next among those it allowed, best first (-1:
// none), and how many logits below the chosen token each stood.
struct Alternative {
  static constexpr int kCount = 3;  // RUNNER_UPS in src/native/decoder.ts
  int32_t token[kCount] = {-1, -1, -1};
  float margin[kCount] = {0, 0, 0};
};

// Optional per-call dumps for golden tests.
struct Capture {
  bool hidden = false;      // hidden state after each layer, [layers, n, hidden]
  bool all_logits = false;  // logits of every new entry, [n, vocab] (else only the last)
  std::vector<float> hidden_states, logits;
};

class Session {
 public:
  Session(Decoder& decoder, const SessionOptions& opts);

  // Appends entries. tokens[i] >= 0 is a token id (kind Extended); tokens[i] < 0 takes the next row of
  // `embeds` ([n_embeds, hidden], kind Visual). A token generated earlier and not yet fed is fed first.
  void extend(const int32_t* tokens, int64_t n, const float* embeds, int64_t n_embeds, Capture* capture = nullptr);

  // Stops attending entries at positions [begin, end) and reuses their cache slots.
  void retire(int64_t begin, int64_t end);

  // Greedy decoding from the last logits. on_token is called for each token as it is chosen.
  // Returns "stop" (a stop token was produced, included in the output), "length" (max_tokens reached)
  // or "cancelled".
  std::string generate(const GenerateOptions& opts, const std::function<void(int32_t)>& on_token,
                       const std::atomic<bool>* cancel);

  int64_t length() const { return static_cast<int64_t>(entries_.size()) + (pending_ >= 0 ? 1 : 0); }
  int64_t live_entries() const { return static_cast<int64_t>(live_.size()); }
  size_t cache_bytes() const;  // bytes of KV storage currently allocated
  const std::vector<float>& last_logits() const { return last_logits_; }
  // The runner-ups of the latest generate call's tokens, one per token (empty unless it asked for them).
  const std::vector<Alternative>& alternatives() const { return alternatives_; }
  const SessionOptions& options() const { return opts_; }
  const AttentionStats& attention_stats() const { return stats_; }
  // Changes the focal options mid-session (benchmarks compare settings on one prefill): the warm-up
  // starts over and the current set is dropped. Validated like the constructor's.
  void set_focal(const SessionOptions::Focal& focal);
  // Focal layers chosen after the warm-up (empty before, or with focal pruning off).
  std::vector<int> focal_layers() const { return focal_.focal_layers(); }
  // Hands over the fixations recorded since the last call.
  std::vector<Fixation> take_fixations() { return focal_.take_fixations(); }

 private:
  void feed_pending();
  int32_t alloc_slot();
  void reserve_slots(int64_t n);
  void release(int64_t position);
  // Runs the new entries (already appended to entries_, slots assigned) through every layer.
  void forward(const float* x_in, int64_t n, Capture* capture, bool decode = false);

  Decoder& decoder_;
  SessionOptions opts_;
  std::vector<KvLayer> kv_;  // [layers]
  int64_t capacity_ = 0;     // slots per layer
  std::vector<int32_t> free_slots_;
  std::vector<CacheEntry> entries_;        // index = position
  std::vector<int64_t> live_;              // positions holding a slot, ascending
  RswaWindow rswa_;                        // which generated entries stay (full or R-SWA)
  FocalPolicy focal_;                      // which visual entries a decode step attends
  std::vector<int32_t> history_;           // generated tokens, for the no-repeat rule
  std::vector<float> last_logits_;         // [vocab] after the latest entry
  std::vector<Alternative> alternatives_;  // the latest generate call's runner-ups (GenerateOptions::alternatives)
  int32_t pending_ = -1;                   // generated token not yet in the cache
  AttentionStats stats_;
};

}  // namespace ocr
