// The decoder's configuration and its weights bound by HF name (memory-mapped, never converted).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "cpu/kernels.h"
#include "safetensors.h"
#include "threadpool.h"

namespace ocr {

// The `decoder` section of model.json (HF DeepSeek-V2 keys), already validated in TypeScript.
struct DecoderConfig {
  int vocab_size = 0, hidden_size = 0, num_hidden_layers = 0;
  int num_attention_heads = 0, num_key_value_heads = 0, head_dim = 0;
  int intermediate_size = 0, moe_intermediate_size = 0;
  int n_routed_experts = 0, num_experts_per_tok = 0, n_shared_experts = 0, first_k_dense_replace = 0;
  bool norm_topk_prob = false;
  float routed_scaling_factor = 1.f, rms_norm_eps = 1e-6f, rope_theta = 10000.f;
  bool tie_word_embeddings = false;
  bool is_moe_layer(int l) const { return n_routed_experts > 0 && l >= first_k_dense_replace; }
};

struct MlpWeights {                  // SwiGLU: down(silu(gate x) * up x)
  const TensorView* gate = nullptr;  // [inter, hidden]
  const TensorView* up = nullptr;    // [inter, hidden]
  const TensorView* down = nullptr;  // [hidden, inter]
};

struct LayerWeights {
  std::vector<float> attn_norm, mlp_norm;                                   // [hidden], widened to f32 at load
  const TensorView *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr;  // [heads*d, hidden] ... [hidden, heads*d]
  bool moe = false;
  MlpWeights dense;                    // layers < first_k_dense_replace
  const TensorView* router = nullptr;  // [n_experts, hidden]
  std::vector<MlpWeights> experts;     // [n_experts]
  MlpWeights shared;                   // fused shared experts (gate == nullptr when none)
};

struct DecoderOptions {
  int threads = 1;
  std::string kernels;  // "" = best for this CPU; "ref" | "avx2" | "avx512" to force
  // Ops smaller than this many multiply-adds run on the calling thread (waking the pool costs more);
  // tests set 0 so even the tiny fixtures go through the pool.
  int64_t min_parallel_macs = 1 << 18;
  WeightPages pages = WeightPages::Auto;  // how the weight files are held (safetensors.h)
};

class Decoder {
 public:
  Decoder(const DecoderConfig& cfg, const std::vector<std::string>& weight_paths, const DecoderOptions& opts);
  const DecoderConfig& config() const { return cfg_; }
  const Kernels& kernels() const { return *kernels_; }
  ThreadPool& pool() { return *pool_; }
  const WeightStore& store() const { return *store_; }
  int64_t min_parallel_macs() const { return min_parallel_macs_; }

  // Token embedding row, widened to f32.
  void embed(int32_t token, float* out) const;
  // Bytes of weights one decode step streams (attention, dense MLPs, router, top-k + shared experts, lm_head).
  size_t decode_weight_bytes() const;

  const TensorView* embed_tokens = nullptr;  // [vocab, hidden]
  const TensorView* lm_head = nullptr;       // [vocab, hidden] (the embedding when tied)
  std::vector<float> final_norm;             // [hidden]
  std::vector<LayerWeights> layers;

 private:
  DecoderConfig cfg_;
  std::unique_ptr<WeightStore> store_;
  std::unique_ptr<ThreadPool> pool_;
  const Kernels* kernels_;
  int64_t min_parallel_macs_;
};

}  // namespace ocr
