// Session bookkeeping: slot allocation, the attention policies' events, retiring, greedy decoding with the no-repeat
// rule.
#include "session.h"

#include <algorithm>
#include <cstring>

#include "profile.h"
#include "routing.h"

namespace ocr {

static int checked_window(int window) {
  if (window < 0) throw DecoderError("BAD_OPTION", "attention window must be >= 0 (0 = full attention)");
  return window;
}

Session::Session(Decoder& decoder, const SessionOptions& opts)
    : decoder_(decoder),
      opts_(opts),
      rswa_(checked_window(opts.window)),
      focal_(opts.focal, decoder.config().num_hidden_layers, opts.record_fixations) {
  const DecoderConfig& c = decoder.config();
  kv_.resize(static_cast<size_t>(c.num_hidden_layers));
  for (auto& kv : kv_) {
    kv.dtype = opts.kv_dtype;
    kv.kv_heads = c.num_key_value_heads;
    kv.head_dim = c.head_dim;
  }
}

size_t Session::cache_bytes() const {
  size_t n = 0;
  for (auto& kv : kv_) n += kv.k.size() + kv.v.size();
  return n;
}

// Makes at least `n` slots free, doubling the cache (one copy of every layer's K/V however many doublings).
void Session::reserve_slots(int64_t n) {
  const int64_t free = static_cast<int64_t>(free_slots_.size());
  if (free >= n) return;
  int64_t grown = std::max<int64_t>(64, capacity_ * 2);
  while (free + grown - capacity_ < n) grown *= 2;
  for (auto& kv : kv_) kv.grow(grown);
  // Lowest slots are handed out first (free_slots_ is a stack).
  free_slots_.insert(free_slots_.begin(), static_cast<size_t>(grown - capacity_), 0);
  for (int64_t s = capacity_, i = grown - capacity_ - 1; s < grown; s++, i--)
    free_slots_[static_cast<size_t>(i)] = static_cast<int32_t>(s);
  capacity_ = grown;
}

int32_t Session::alloc_slot() {
  reserve_slots(1);
  const int32_t s = free_slots_.back();
  free_slots_.pop_back();
  return s;
}

void Session::release(int64_t position) {
  CacheEntry& e = entries_[position];
  if (e.slot < 0) return;
  free_slots_.push_back(e.slot);
  e.slot = -1;
  auto it = std::lower_bound(live_.begin(), live_.end(), position);
  if (it != live_.end() && *it == position) live_.erase(it);
}

void Session::feed_pending() {
  if (pending_ < 0) return;
  const int32_t token = pending_;
  pending_ = -1;
  // R-SWA: the generated entry falling out of the window gives its slot to the new one (the ring).
  const int64_t out = rswa_.evict();
  if (out >= 0) release(out);
  const int64_t pos = static_cast<int64_t>(entries_.size());
  entries_.push_back({EntryKind::Generated, alloc_slot()});
  std::vector<float> x(static_cast<size_t>(decoder_.config().hidden_size));
  decoder_.embed(token, x.data());
  forward(x.data(), 1, nullptr, true);
  live_.push_back(pos);
  rswa_.admit(pos);
}

void Session::extend(const int32_t* tokens, int64_t n, const float* embeds, int64_t n_embeds, Capture* capture) {
  const int64_t H = decoder_.config().hidden_size;
  int64_t needed = 0;
  for (int64_t i = 0; i < n; i++) {
    if (tokens[i] < 0)
      needed++;
    else if (tokens[i] >= decoder_.config().vocab_size)
      throw DecoderError("BAD_INPUT", "token id " + std::to_string(tokens[i]) + " at index " + std::to_string(i) +
                                          " is outside the vocabulary");
  }
  if (needed != n_embeds)
    throw DecoderError("BAD_INPUT", std::to_string(needed) + " embedding placeholders but " + std::to_string(n_embeds) +
                                        " embedding rows");
  if (n <= 0) throw DecoderError("BAD_INPUT", "extend needs at least one entry");
  feed_pending();
  reserve_slots(n);
  std::vector<float> x(static_cast<size_t>(n * H));
  int64_t row = 0;
  const int64_t first = static_cast<int64_t>(entries_.size());
  for (int64_t i = 0; i < n; i++) {
    if (tokens[i] < 0) {
      std::memcpy(x.data() + i * H, embeds + (row++) * H, sizeof(float) * H);
      entries_.push_back({EntryKind::Visual, alloc_slot()});
    } else {
      decoder_.embed(tokens[i], x.data() + i * H);
      entries_.push_back({EntryKind::Extended, alloc_slot()});
    }
  }
  forward(x.data(), n, capture);
  for (int64_t i = 0; i < n; i++) live_.push_back(first + i);
  focal_.on_extend(row > 0);
}

void Session::retire(int64_t begin, int64_t end) {
  feed_pending();  // the pending token belongs before any later extension; keep order simple
  const int64_t len = static_cast<int64_t>(entries_.size());
  if (begin < 0 || end > len || begin > end)
    throw DecoderError("BAD_INPUT", "retire range [" + std::to_string(begin) + ", " + std::to_string(end) +
                                        ") is outside the session (length " + std::to_string(len) + ")");
  focal_.on_retire();
  for (int64_t p = begin; p < end; p++) {
    release(p);
    if (entries_[p].kind == EntryKind::Generated) rswa_.forget(p);
  }
}

void Session::set_focal(const SessionOptions::Focal& focal) {
  focal_.configure(focal);
  opts_.focal = focal;
}

std::string Session::generate(const GenerateOptions& opts, const std::function<void(int32_t)>& on_token,
                              const std::atomic<bool>* cancel) {
  if (last_logits_.empty() && pending_ < 0)
    throw DecoderError("BAD_STATE", "generate called before any entry was added");
  const int64_t V = decoder_.config().vocab_size;
  if (!opts.max_run.empty() && static_cast<int64_t>(opts.max_run.size()) != V)
    throw DecoderError("BAD_OPTION", "maxRun has " + std::to_string(opts.max_run.size()) +
                                         " entries; the vocabulary has " + std::to_string(V));
  // `fixed` holds the call's own bans; `banned` is them plus this step's (no-repeat, run caps), reset each step
  std::vector<uint8_t> fixed(static_cast<size_t>(V), 0);
  for (int32_t t : opts.ban) {
    if (t < 0 || t >= V)
      throw DecoderError("BAD_OPTION",
                         "ban has token " + std::to_string(t) + "; the vocabulary has " + std::to_string(V));
    fixed[static_cast<size_t>(t)] = 1;
  }
  const bool any_fixed = !opts.ban.empty();
  std::vector<uint8_t> banned = fixed;
  std::vector<int32_t> banned_list;
  alternatives_.clear();
  for (int i = 0; i < opts.max_tokens; i++) {
    if (cancel && cancel->load()) return "cancelled";
    feed_pending();
    // No-repeat rule: ban tokens that would complete an n-gram already present among the last
    // `lookback` generated tokens (the exempt ones stay allowed).
    const NoRepeatRule& nr = opts.no_repeat;
    const int64_t len = static_cast<int64_t>(history_.size());
    if (nr.n > 0 && len >= nr.n - 1) {
      const int64_t start = nr.lookback > 0 ? std::max<int64_t>(0, len - nr.lookback) : 0;
      for (int64_t s = start; s + nr.n <= len; s++) {
        bool match = true;
        for (int j = 0; j < nr.n - 1 && match; j++) match = history_[s + j] == history_[len - (nr.n - 1) + j];
        if (!match) continue;
        const int32_t t = history_[s + nr.n - 1];
        if (std::find(nr.exempt.begin(), nr.exempt.end(), t) != nr.exempt.end()) continue;
        banned[t] = 1;
        banned_list.push_back(t);
      }
    }
    // Run cap: the last token may not extend its run past max_run[token].
    if (!opts.max_run.empty() && len > 0) {
      const int32_t t = history_.back();
      const int32_t cap = opts.max_run[static_cast<size_t>(t)];
      if (cap > 0) {
        int64_t run = 1;
        while (run < len && run < cap && history_[len - 1 - run] == t) run++;
        if (run >= cap && !banned[t]) {
          banned[t] = 1;
          banned_list.push_back(t);
        }
      }
    }
    const std::vector<uint8_t>* mask = banned_list.empty() && !any_fixed ? nullptr : &banned;
    int64_t tok = argmax_masked(last_logits_.data(), V, mask);
    if (tok < 0) {
      mask = nullptr;
      tok = argmax_masked(last_logits_.data(), V, nullptr);  // everything banned: fall back
    }
    const int32_t token = static_cast<int32_t>(tok);
    if (opts.alternatives) {
      // the best allowed tokens besides the chosen one, best first
      Alternative alt;
      top_masked(last_logits_.data(), V, mask, tok, Alternative::kCount, alt.token);
      for (int k = 0; k < Alternative::kCount; k++)
        if (alt.token[k] >= 0) alt.margin[k] = last_logits_[tok] - last_logits_[alt.token[k]];
      alternatives_.push_back(alt);
    }
    for (int32_t t : banned_list) banned[t] = fixed[t];
    banned_list.clear();
    history_.push_back(token);
    pending_ = token;
    on_token(token);
    if (std::find(opts.stop_tokens.begin(), opts.stop_tokens.end(), token) != opts.stop_tokens.end()) {
      decode_profile_report();
      return "stop";
    }
  }
  decode_profile_report();
  return "length";
}

}  // namespace ocr
