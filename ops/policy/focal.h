// Focal pruning (FastOCR, training-free) as an attention policy on decode steps, on top of full attention or R-SWA.
// Prefill always attends everything. Visual entries are the `Visual` kind (rows passed as embeddings).
//
// - warm-up: the first `warmup` decode steps after a view arrives attend fully (a new view is read unpruned until the
//   model has found its place in it); during the session's first warm-up every layer reports the head-averaged
//   softmax weight its query puts on visual keys, and after it the `layers` layers with the largest sum (ties: lowest
//   layer index) become focal.
// - after it: a focal layer attends every live visual key and keeps the top ceil(keep * N) by head-averaged
//   probability (ties: lowest position; select.h); every other layer attends the non-visual keys and the current
//   set, which carries over from the previous step until the first focal layer replaces it. In a later view's
//   warm-up the focal layers already choose, so the set is ready when pruning resumes. extend / retire reset the set.
// - keep = 1 builds exactly the unpruned key list, so results are bitwise identical to no pruning.
#pragma once
#include <cstdint>
#include <vector>

#include "entries.h"

namespace ocr {

struct FocalOptions {
  double keep = 1.0;  // share tau of the visual entries kept in a focal layer, 0 < keep <= 1
  int layers = 0;     // number of focal layers K chosen after the warm-up; 0 turns pruning off
  int warmup = 0;     // decode steps with full attention after each view arrives; the first ones also
                      // measure each layer's visual share, which chooses the focal layers
};

// One focal decode step's selection: the position of the entry being fed and the visual positions the
// last focal layer kept (ascending).
struct Fixation {
  int64_t position;
  std::vector<int64_t> visual;
};

class FocalPolicy {
 public:
  // Throws DecoderError(BAD_OPTION) naming the option when `f` is invalid for a decoder of `decoder_layers` layers.
  static void check(const FocalOptions& f, int decoder_layers);

  FocalPolicy(const FocalOptions& f, int decoder_layers, bool record_fixations);
  // New options (benchmarks compare settings on one prefill): the warm-up starts over and the current set is dropped.
  void configure(const FocalOptions& f);
  bool on() const { return opts_.layers > 0; }

  // Cache events: new entries (with or without visual rows) and retired ones.
  void on_extend(bool visual_rows);
  void on_retire() { focus_valid_ = false; }

  // A decode step of the entry at position `first`; `live` holds the positions with a slot, ascending. The policy
  // reads `entries` until end_step.
  void begin_step(const std::vector<CacheEntry>& entries, const std::vector<int64_t>& live, int64_t first);
  // The keys layer l attends (`full`: the step's whole list of n_full slots, the new entry last) and, when the
  // layer's softmax weights are needed, a [heads, n] buffer for them (else nullptr).
  struct LayerKeys {
    const int32_t* slots;
    int32_t n;
    float* probs;
  };
  LayerKeys layer_keys(int layer, const int32_t* full, int32_t n_full, int64_t heads);
  // After layer l's attention: takes the weights written to LayerKeys::probs (measures or chooses the set).
  void after_layer(int layer, int64_t heads);
  void end_step(int64_t first);

  // Focal layers chosen after the warm-up (empty before, or with pruning off).
  std::vector<int> focal_layers() const;
  // Hands over the fixations recorded since the last call.
  std::vector<Fixation> take_fixations() { return std::move(fixations_); }

 private:
  void choose_focal_layers();
  void build_pruned();

  FocalOptions opts_;
  int decoder_layers_;
  bool record_;
  int64_t focal_steps_ = 0;           // decode steps seen (warm-up counts these)
  int64_t view_steps_ = 0;            // decode steps since visual entries last arrived (per-view warm-up)
  std::vector<double> visual_share_;  // [layers] summed head-averaged visual probability over the warm-up
  std::vector<uint8_t> is_focal_;     // [layers], set after the warm-up
  bool focus_valid_ = false;          // focus_ holds the last focal layer's set (else: all visual entries)
  std::vector<int64_t> focus_;        // visual positions kept, ascending
  std::vector<Fixation> fixations_;
  // The step in progress.
  const std::vector<CacheEntry>* entries_ = nullptr;
  int64_t first_ = 0;
  bool measuring_ = false, warm_ = false, pruned_stale_ = true, want_probs_ = false;
  int32_t n_probs_ = 0;
  // Per-step buffers, kept between steps so a decode step allocates nothing for them.
  std::vector<int64_t> all_visual_;                   // live visual positions before the new entry, ascending
  std::vector<int32_t> visual_index_;                 // [all_visual] index of each in the full key list
  std::vector<int64_t> other_pos_;                    // live non-visual positions before the new entry, ascending
  std::vector<int32_t> layer_slots_;                  // the pruned key list (non-visual, focus set, new entry)
  std::vector<float> probs_;                          // [heads, keys] softmax weights of a focal / warm-up layer
  std::vector<double> mean_, visual_mean_, scratch_;  // [keys], [all_visual] head-averaged weights
  std::vector<int32_t> chosen_;                       // indices into all_visual kept by the last focal layer
};

}  // namespace ocr
