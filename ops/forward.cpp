// The decoder forward pass, top to bottom: embed -> per layer (norm, attention, residual, norm,
// MLP or MoE, residual) -> norm -> logits. Prefill runs n entries as matrix-matrix work; a decode step
// is the same code with n = 1 (matrix-vector work).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "attention.h"
#include "linear.h"
#include "norm.h"
#include "profile.h"
#include "routing.h"
#include "session.h"

namespace ocr {

bool decode_profile_on() {
  static const bool on = [] {
    const char* e = std::getenv("OCR_DECODE_PROFILE");
    return e && *e && std::strcmp(e, "0") != 0;
  }();
  return on;
}

DecodeProfile& decode_profile() {
  static DecodeProfile p;
  return p;
}

void decode_profile_report() {
  DecodeProfile& p = decode_profile();
  if (!decode_profile_on() || p.steps == 0) return;
  static const char* names[DecodeProfile::kPhases] = {"norms+residual", "qkv",     "attention", "o",
                                                      "router",         "routing", "expert up", "silu",
                                                      "expert down",    "combine", "dense mlp", "lm_head"};
  double total = 0;
  for (double s : p.seconds) total += s;
  std::fprintf(stderr,
               "decode profile: %lld steps, %.2f ms/step, %.1f linear passes/step:", static_cast<long long>(p.steps),
               1e3 * total / p.steps, static_cast<double>(p.passes) / p.steps);
  for (int i = 0; i < DecodeProfile::kPhases; i++)
    std::fprintf(stderr, " %s %.2f", names[i], 1e3 * p.seconds[i] / p.steps);
  std::fprintf(stderr, " (ms/step)\n");
  p = DecodeProfile();
}

namespace {

// A forward pass's activation buffers, one set per calling thread (passes run on the addon's worker threads, one
// pass per thread at a time), kept between passes: a decode step or a short prefill then allocates nothing, where
// fresh buffers of a few hundred KB are mapped, zero-filled and page-faulted on every call. A pass that needed more
// than kKeepBytes (a long prefill) gives its buffers back at the end.
struct Scratch {
  static constexpr size_t kKeepBytes = size_t{64} << 20;
  std::vector<float> x, xn, tmp, q, k, v, att, logits;     // forward
  std::vector<float> gate, up, route, xs, ys, shared_out;  // MLP / MoE (one layer at a time)
  std::vector<int32_t> ids, count, order;
  std::vector<float> weights;
  // Resizes without shrinking capacity; new elements are not meant to be read before they are written.
  template <typename T>
  static T* take(std::vector<T>& b, int64_t n) {
    if (b.size() < static_cast<size_t>(n)) b.resize(static_cast<size_t>(n));
    return b.data();
  }
  size_t bytes() const {
    size_t f = 0;
    for (const auto* b :
         {&x, &xn, &tmp, &q, &k, &v, &att, &logits, &gate, &up, &route, &xs, &ys, &shared_out, &weights})
      f += b->capacity() * sizeof(float);
    return f + (ids.capacity() + count.capacity() + order.capacity()) * sizeof(int32_t);
  }
  void trim() {
    if (bytes() > kKeepBytes) *this = Scratch();
  }
};

Scratch& scratch() {
  static thread_local Scratch s;
  return s;
}

void linear_jobs(Decoder& m, const std::vector<LinearJob>& jobs) {
  if (decode_profile_on()) decode_profile().passes++;
  linear(m.kernels(), m.pool(), m.min_parallel_macs(), jobs);
}

void mlp_forward(Decoder& m, const MlpWeights& w, const float* x, int64_t n, float* out) {
  Scratch& s = scratch();
  const int64_t inter = w.gate->rows();
  float* g = Scratch::take(s.gate, n * inter);
  float* u = Scratch::take(s.up, n * inter);
  linear_jobs(m, {{x, n, w.gate, g}, {x, n, w.up, u}});
  m.kernels().silu_mul(g, u, g, n * inter);
  linear_jobs(m, {{g, n, w.down, out}});
}

// DeepSeek-V2 MoE: routed experts (top-k of a softmax gate, weights applied in f32) plus shared experts.
void moe_forward(Decoder& m, const LayerWeights& L, const float* x, int64_t n, float* out) {
  const DecoderConfig& c = m.config();
  const Kernels& kr = m.kernels();
  Scratch& s = scratch();
  const int64_t H = c.hidden_size, E = c.n_routed_experts, K = c.num_experts_per_tok, I = c.moe_intermediate_size;
  const int64_t total = n * K, IS = L.shared.gate ? L.shared.gate->rows() : 0;
  float* logits = Scratch::take(s.route, n * E);
  int32_t* ids = Scratch::take(s.ids, total);
  float* weights = Scratch::take(s.weights, total);
  int32_t* offset = Scratch::take(s.count, 2 * (E + 1));  // [E + 1] group starts, then [E] next free place
  int32_t* fill = offset + E + 1;
  int32_t* order = Scratch::take(s.order, total);
  float* xs = Scratch::take(s.xs, total * H);
  float* ys = Scratch::take(s.ys, total * H);
  float* g = Scratch::take(s.gate, total * I + n * IS);  // routed rows, then the shared experts' n rows
  float* u = Scratch::take(s.up, total * I + n * IS);
  float* shared_out = IS ? Scratch::take(s.shared_out, n * H) : nullptr;

  PhaseTimer timer(n == 1);
  linear_jobs(m, {{x, n, L.router, logits}});
  timer.mark(DecodeProfile::Router);
  for (int64_t t = 0; t < n; t++)
    route_topk(logits + t * E, E, K, c.norm_topk_prob, c.routed_scaling_factor, ids + t * K, weights + t * K);
  // Group the (token, choice) pairs by expert, tokens ascending (a counting sort): order[offset[e] .. offset[e + 1])
  // holds expert e's pairs as t * K + j.
  std::fill(offset, offset + E + 1, 0);
  for (int64_t i = 0; i < total; i++) offset[ids[i] + 1]++;
  for (int64_t e = 0; e < E; e++) offset[e + 1] += offset[e];
  std::copy(offset, offset + E, fill);
  for (int64_t i = 0; i < total; i++) order[fill[ids[i]]++] = static_cast<int32_t>(i);

  std::vector<LinearJob> up_jobs, down_jobs;
  for (int64_t e = 0; e < E; e++) {
    const int64_t first = offset[e], cnt = offset[e + 1] - first;
    if (cnt == 0) continue;
    float* xe = xs + first * H;
    for (int64_t r = 0; r < cnt; r++) std::memcpy(xe + r * H, x + (order[first + r] / K) * H, sizeof(float) * H);
    up_jobs.push_back({xe, cnt, L.experts[e].gate, g + first * I});
    up_jobs.push_back({xe, cnt, L.experts[e].up, u + first * I});
    down_jobs.push_back({g + first * I, cnt, L.experts[e].down, ys + first * H});
  }
  float* shared_g = g + total * I;
  if (IS) {  // shared experts ride in the same parallel passes
    up_jobs.push_back({x, n, L.shared.gate, shared_g});
    up_jobs.push_back({x, n, L.shared.up, u + total * I});
  }
  timer.mark(DecodeProfile::Routing);
  linear_jobs(m, up_jobs);
  timer.mark(DecodeProfile::ExpertUp);
  kr.silu_mul(g, u, g, total * I + n * IS);
  if (IS) down_jobs.push_back({shared_g, n, L.shared.down, shared_out});
  timer.mark(DecodeProfile::SiluMul);
  linear_jobs(m, down_jobs);
  timer.mark(DecodeProfile::ExpertDown);
  // out[t] = sum over t's choices j (in order) of weight * expert output, then + the shared experts' output.
  std::fill(out, out + n * H, 0.f);
  for (int64_t e = 0; e < E; e++)
    for (int64_t r = offset[e]; r < offset[e + 1]; r++) {
      const int64_t t = order[r] / K;
      const float wt = weights[order[r]];
      const float* ye = ys + r * H;
      float* o = out + t * H;
      for (int64_t i = 0; i < H; i++) o[i] += wt * ye[i];
    }
  if (IS)
    for (int64_t i = 0; i < n * H; i++) out[i] += shared_out[i];
  timer.mark(DecodeProfile::Combine);
}

}  // namespace

void Session::forward(const float* x_in, int64_t n, Capture* capture, bool decode) {
  using clock = std::chrono::steady_clock;
  const auto t_step = clock::now();
  double attn_s = 0;
  const DecoderConfig& c = decoder_.config();
  const int64_t H = c.hidden_size, NH = c.num_attention_heads, NKV = c.num_key_value_heads, D = c.head_dim;
  const int64_t first = static_cast<int64_t>(entries_.size()) - n;
  const Kernels& k = decoder_.kernels();

  // Keys each new entry may see: the live entries before this call, then the new ones up to itself.
  std::vector<int32_t> slots;
  slots.reserve(live_.size() + static_cast<size_t>(n));
  for (int64_t p : live_)
    if (p < first) slots.push_back(entries_[p].slot);
  const int32_t n_old = static_cast<int32_t>(slots.size());
  std::vector<int32_t> visible(static_cast<size_t>(n));
  std::vector<int64_t> positions(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) {
    slots.push_back(entries_[first + i].slot);
    visible[i] = n_old + static_cast<int32_t>(i) + 1;
    positions[i] = first + i;
  }

  // Focal pruning (decode steps only; prefill always attends everything): the policy picks each layer's keys.
  const bool focal = decode && n == 1 && focal_.on();
  if (focal) focal_.begin_step(entries_, live_, first);

  Scratch& sc = scratch();
  float* x = Scratch::take(sc.x, n * H);
  std::copy(x_in, x_in + n * H, x);
  float* xn = Scratch::take(sc.xn, n * H);
  float* tmp = Scratch::take(sc.tmp, n * H);
  float* q = Scratch::take(sc.q, n * NH * D);
  float* kk = Scratch::take(sc.k, n * NKV * D);
  float* vv = Scratch::take(sc.v, n * NKV * D);
  float* att = Scratch::take(sc.att, n * NH * D);
  if (capture && capture->hidden) capture->hidden_states.assign(static_cast<size_t>(c.num_hidden_layers * n * H), 0.f);

  PhaseTimer timer(decode);
  for (int l = 0; l < c.num_hidden_layers; l++) {
    const LayerWeights& L = decoder_.layers[l];
    KvLayer& kv = kv_[l];
    // Attention block.
    rms_norm(x, L.attn_norm.data(), xn, n, H, c.rms_norm_eps);
    timer.mark(DecodeProfile::Norms);
    linear_jobs(decoder_, {{xn, n, L.q, q}, {xn, n, L.k, kk}, {xn, n, L.v, vv}});
    timer.mark(DecodeProfile::Qkv);
    rope(q, positions.data(), n, NH, D, c.rope_theta);
    rope(kk, positions.data(), n, NKV, D, c.rope_theta);
    for (int64_t i = 0; i < n; i++) {
      const int32_t s = entries_[first + i].slot;
      for (int64_t g = 0; g < NKV; g++) {
        k.store(kv.dtype, kk + (i * NKV + g) * D, kv.k.data() + kv.offset(g, s), D);
        k.store(kv.dtype, vv + (i * NKV + g) * D, kv.v.data() + kv.offset(g, s), D);
      }
    }
    const auto t_attn = clock::now();
    if (!focal) {
      attention(k, decoder_.pool(), decoder_.min_parallel_macs(), q, n, NH, NKV, D, kv, slots.data(), visible.data(),
                att);
    } else {
      const FocalPolicy::LayerKeys keys = focal_.layer_keys(l, slots.data(), visible[0], NH);
      int32_t nv = keys.n;
      attention(k, decoder_.pool(), decoder_.min_parallel_macs(), q, 1, NH, NKV, D, kv, keys.slots, &nv, att,
                keys.probs);
      focal_.after_layer(l, NH);
    }
    if (decode) attn_s += std::chrono::duration<double>(clock::now() - t_attn).count();
    timer.mark(DecodeProfile::Attention);
    linear_jobs(decoder_, {{att, n, L.o, tmp}});
    timer.mark(DecodeProfile::O);
    for (int64_t i = 0; i < n * H; i++) x[i] += tmp[i];
    // MLP block.
    rms_norm(x, L.mlp_norm.data(), xn, n, H, c.rms_norm_eps);
    timer.mark(DecodeProfile::Norms);
    if (L.moe) {
      moe_forward(decoder_, L, xn, n, tmp);
      timer = PhaseTimer(decode);
    } else {
      mlp_forward(decoder_, L.dense, xn, n, tmp);
      timer.mark(DecodeProfile::Dense);
    }
    for (int64_t i = 0; i < n * H; i++) x[i] += tmp[i];
    if (capture && capture->hidden)
      std::memcpy(capture->hidden_states.data() + static_cast<size_t>(l) * n * H, x, sizeof(float) * n * H);
  }

  // Final norm and logits: every row when captured, else only the last (the one decoding continues from).
  const bool all = capture && capture->all_logits;
  const int64_t rows = all ? n : 1;
  const float* src = x + (all ? 0 : (n - 1) * H);
  rms_norm(src, decoder_.final_norm.data(), xn, rows, H, c.rms_norm_eps);
  timer.mark(DecodeProfile::Norms);
  const int64_t V = c.vocab_size;
  float* logits = all ? (capture->logits.resize(static_cast<size_t>(rows * V)), capture->logits.data())
                      : Scratch::take(sc.logits, V);
  linear_jobs(decoder_, {{xn, rows, decoder_.lm_head, logits}});
  last_logits_.assign(logits + (rows - 1) * V, logits + rows * V);
  timer.mark(DecodeProfile::LmHead);
  if (decode && decode_profile_on()) decode_profile().steps++;
  if (capture && !all) capture->logits = last_logits_;
  sc.trim();
  if (decode) {
    stats_.decode_steps++;
    stats_.attention_seconds += attn_s;
    stats_.decode_seconds += std::chrono::duration<double>(clock::now() - t_step).count();
  }
  if (focal) focal_.end_step(first);
}

}  // namespace ocr
