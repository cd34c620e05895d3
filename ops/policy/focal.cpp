// Focal pruning's bookkeeping: warm-ups, the choice of focal layers, the kept set and the pruned key list.
#include "focal.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "../common.h"
#include "../select.h"

namespace ocr {

void FocalPolicy::check(const FocalOptions& f, int decoder_layers) {
  if (f.layers < 0 || f.layers > decoder_layers)
    throw DecoderError("BAD_OPTION",
                       "focal layers must be in 0.." + std::to_string(decoder_layers) + " (the decoder's layer count)");
  if (f.layers > 0 && !(f.keep > 0 && f.keep <= 1)) throw DecoderError("BAD_OPTION", "focal keep must be in (0, 1]");
  if (f.layers > 0 && f.warmup < 1)
    throw DecoderError("BAD_OPTION", "focal warm-up must be at least 1 decode step (it chooses the focal layers)");
}

FocalPolicy::FocalPolicy(const FocalOptions& f, int decoder_layers, bool record_fixations)
    : opts_(f), decoder_layers_(decoder_layers), record_(record_fixations) {
  check(f, decoder_layers);
}

void FocalPolicy::configure(const FocalOptions& f) {
  check(f, decoder_layers_);
  opts_ = f;
  focal_steps_ = 0;
  view_steps_ = 0;
  visual_share_.clear();
  is_focal_.clear();
  focus_valid_ = false;
}

void FocalPolicy::on_extend(bool visual_rows) {
  focus_valid_ = false;              // new visual entries compete again: the next focal layer chooses among all
  if (visual_rows) view_steps_ = 0;  // a new view is read unpruned for its first `warmup` steps
}

void FocalPolicy::begin_step(const std::vector<CacheEntry>& entries, const std::vector<int64_t>& live, int64_t first) {
  entries_ = &entries;
  first_ = first;
  measuring_ = focal_steps_ < opts_.warmup;
  warm_ = measuring_ || view_steps_ < opts_.warmup;
  pruned_stale_ = true;
  visual_index_.clear();
  all_visual_.clear();
  other_pos_.clear();
  for (int64_t p : live)
    if (p < first) {
      if (entries[p].kind == EntryKind::Visual) {
        visual_index_.push_back(static_cast<int32_t>(all_visual_.size() + other_pos_.size()));
        all_visual_.push_back(p);
      } else {
        other_pos_.push_back(p);
      }
    }
  if (visual_share_.empty()) visual_share_.assign(static_cast<size_t>(decoder_layers_), 0.0);
  if (focus_valid_) {  // the set must still be live (retire / extend reset it, this guards anyway)
    for (int64_t p : focus_)
      if (entries[p].slot < 0) {
        focus_valid_ = false;
        break;
      }
  }
}

// Slots of the non-visual keys plus the focus set (both ascending by position), then the new entry; built once per
// choice of the set, not once per layer.
void FocalPolicy::build_pruned() {
  const std::vector<CacheEntry>& e = *entries_;
  layer_slots_.clear();
  size_t j = 0;
  for (int64_t p : other_pos_) {
    while (j < focus_.size() && focus_[j] < p) layer_slots_.push_back(e[focus_[j++]].slot);
    layer_slots_.push_back(e[p].slot);
  }
  while (j < focus_.size()) layer_slots_.push_back(e[focus_[j++]].slot);
  layer_slots_.push_back(e[first_].slot);
  pruned_stale_ = false;
}

FocalPolicy::LayerKeys FocalPolicy::layer_keys(int l, const int32_t* full, int32_t n_full, int64_t heads) {
  const bool full_layer = warm_ || is_focal_[l] || !focus_valid_;
  want_probs_ = measuring_ || is_focal_[l];
  LayerKeys keys{full, n_full, nullptr};
  if (!full_layer) {
    if (pruned_stale_) build_pruned();
    keys.slots = layer_slots_.data();
    keys.n = static_cast<int32_t>(layer_slots_.size());
  }
  if (want_probs_) {
    probs_.resize(static_cast<size_t>(heads * keys.n));  // every element is written by the kernel
    keys.probs = probs_.data();
  }
  n_probs_ = keys.n;
  return keys;
}

void FocalPolicy::after_layer(int l, int64_t heads) {
  if (!want_probs_) return;
  // Head-averaged probability of every key (the list is the full one here), then of the visual ones.
  const int32_t nv = n_probs_;
  mean_.resize(static_cast<size_t>(nv));
  head_mean(probs_.data(), heads, nv, mean_.data());
  const int64_t N = static_cast<int64_t>(all_visual_.size());
  visual_mean_.resize(static_cast<size_t>(N));
  double share = 0;
  for (int64_t i = 0; i < N; i++) share += (visual_mean_[i] = mean_[visual_index_[i]]);
  if (measuring_) {
    visual_share_[l] += share;
  } else if (N > 0) {
    const int64_t keep = std::min<int64_t>(
        N, std::max<int64_t>(1, static_cast<int64_t>(std::ceil(opts_.keep * static_cast<double>(N)))));
    chosen_.resize(static_cast<size_t>(keep));
    topk_indices(visual_mean_.data(), N, keep, scratch_, chosen_.data());
    focus_.resize(static_cast<size_t>(keep));
    for (int64_t i = 0; i < keep; i++) focus_[i] = all_visual_[chosen_[i]];
    focus_valid_ = true;
    pruned_stale_ = true;
  }
}

void FocalPolicy::end_step(int64_t first) {
  if (!warm_ && record_ && focus_valid_) fixations_.push_back({first, focus_});
  focal_steps_++;
  view_steps_++;
  if (focal_steps_ == opts_.warmup) choose_focal_layers();
  entries_ = nullptr;
}

// The K layers with the highest visual share over the warm-up (ties: lowest layer index).
void FocalPolicy::choose_focal_layers() {
  const int L = decoder_layers_;
  std::vector<int> order(static_cast<size_t>(L));
  for (int i = 0; i < L; i++) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return visual_share_[a] > visual_share_[b]; });
  is_focal_.assign(static_cast<size_t>(L), 0);
  for (int i = 0; i < opts_.layers; i++) is_focal_[order[i]] = 1;
}

std::vector<int> FocalPolicy::focal_layers() const {
  std::vector<int> out;
  for (size_t i = 0; i < is_focal_.size(); i++)
    if (is_focal_[i]) out.push_back(static_cast<int>(i));
  return out;
}

}  // namespace ocr
