// Binds checkpoint tensors to the decoder's structure, checking every shape against the config.
#include "decoder.h"

namespace ocr {
namespace {

// Norm weights and the embedding stay float in every bundle (block quantisation is for weight matrices).
const TensorView& float_tensor(const TensorView& t, const std::string& name) {
  if (dtype_is_quantized(t.dtype))
    throw DecoderError("BAD_WEIGHTS", "weights: tensor '" + name + "' is " + dtype_name(t.dtype) +
                                          "; norms, the router and embeddings must stay float");
  return t;
}

std::vector<float> widen(const TensorView& t) {
  std::vector<float> out(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < out.size(); i++) {
    switch (t.dtype) {
      case DType::F32:
        out[i] = static_cast<const float*>(t.data)[i];
        break;
      case DType::F16:
        out[i] = f16_to_f32(static_cast<const uint16_t*>(t.data)[i]);
        break;
      default:
        out[i] = bf16_to_f32(static_cast<const uint16_t*>(t.data)[i]);
        break;
    }
  }
  return out;
}

size_t bytes(const TensorView* t) {
  return t ? static_cast<size_t>(t->rows()) * dtype_row_bytes(t->dtype, t->cols()) : 0;
}

}  // namespace

Decoder::Decoder(const DecoderConfig& cfg, const std::vector<std::string>& weight_paths, const DecoderOptions& opts)
    : cfg_(cfg), kernels_(&kernels_select(opts.kernels.c_str())), min_parallel_macs_(opts.min_parallel_macs) {
  if (cfg.hidden_size <= 0 || cfg.num_hidden_layers <= 0 || cfg.vocab_size <= 0 || cfg.num_attention_heads <= 0 ||
      cfg.num_key_value_heads <= 0 || cfg.head_dim <= 0 || cfg.head_dim % 2 != 0 ||
      cfg.num_attention_heads % cfg.num_key_value_heads != 0)
    throw DecoderError("BAD_CONFIG",
                       "decoder config: sizes must be positive, head_dim even, heads a multiple of kv heads");
  if (cfg.n_routed_experts > 0 && (cfg.num_experts_per_tok <= 0 || cfg.num_experts_per_tok > cfg.n_routed_experts))
    throw DecoderError("BAD_CONFIG", "decoder config: num_experts_per_tok must be in 1..n_routed_experts");
  store_ = std::make_unique<WeightStore>(weight_paths, opts.pages);
  const int64_t H = cfg.hidden_size, V = cfg.vocab_size, D = cfg.head_dim;
  const int64_t NH = cfg.num_attention_heads, NKV = cfg.num_key_value_heads;
  auto& s = *store_;
  embed_tokens = &float_tensor(s.require("model.embed_tokens.weight", {V, H}), "model.embed_tokens.weight");
  lm_head = cfg.tie_word_embeddings ? embed_tokens : &s.require("lm_head.weight", {V, H});
  final_norm = widen(float_tensor(s.require("model.norm.weight", {H}), "model.norm.weight"));
  // the rows the sequence layout inserts are read by the driver (TypeScript); here only their shapes are checked
  if (s.find("model.image_newline")) s.require("model.image_newline", {H});
  if (s.find("model.view_seperator")) s.require("model.view_seperator", {H});
  auto mlp = [&](const std::string& p, int64_t inter) {
    MlpWeights m;
    m.gate = &s.require(p + ".gate_proj.weight", {inter, H});
    m.up = &s.require(p + ".up_proj.weight", {inter, H});
    m.down = &s.require(p + ".down_proj.weight", {H, inter});
    return m;
  };
  for (int l = 0; l < cfg.num_hidden_layers; l++) {
    const std::string p = "model.layers." + std::to_string(l);
    LayerWeights L;
    L.attn_norm = widen(float_tensor(s.require(p + ".input_layernorm.weight", {H}), p + ".input_layernorm.weight"));
    L.mlp_norm = widen(
        float_tensor(s.require(p + ".post_attention_layernorm.weight", {H}), p + ".post_attention_layernorm.weight"));
    L.q = &s.require(p + ".self_attn.q_proj.weight", {NH * D, H});
    L.k = &s.require(p + ".self_attn.k_proj.weight", {NKV * D, H});
    L.v = &s.require(p + ".self_attn.v_proj.weight", {NKV * D, H});
    L.o = &s.require(p + ".self_attn.o_proj.weight", {H, NH * D});
    L.moe = cfg.is_moe_layer(l);
    if (!L.moe) {
      L.dense = mlp(p + ".mlp", cfg.intermediate_size);
    } else {
      L.router = &float_tensor(s.require(p + ".mlp.gate.weight", {cfg.n_routed_experts, H}), p + ".mlp.gate.weight");
      for (int e = 0; e < cfg.n_routed_experts; e++)
        L.experts.push_back(mlp(p + ".mlp.experts." + std::to_string(e), cfg.moe_intermediate_size));
      if (cfg.n_shared_experts > 0)
        L.shared =
            mlp(p + ".mlp.shared_experts", static_cast<int64_t>(cfg.moe_intermediate_size) * cfg.n_shared_experts);
    }
    layers.push_back(std::move(L));
  }
  pool_ = std::make_unique<ThreadPool>(opts.threads);
}

void Decoder::embed(int32_t token, float* out) const {
  if (token < 0 || token >= cfg_.vocab_size)
    throw DecoderError("BAD_INPUT", "token id " + std::to_string(token) + " is outside the vocabulary (0.." +
                                        std::to_string(cfg_.vocab_size - 1) + ")");
  const int64_t H = cfg_.hidden_size;
  const uint8_t* row = embed_tokens->row_ptr(token);
  for (int64_t i = 0; i < H; i++) {
    switch (embed_tokens->dtype) {
      case DType::F32:
        out[i] = reinterpret_cast<const float*>(row)[i];
        break;
      case DType::F16:
        out[i] = f16_to_f32(reinterpret_cast<const uint16_t*>(row)[i]);
        break;
      default:
        out[i] = bf16_to_f32(reinterpret_cast<const uint16_t*>(row)[i]);
        break;
    }
  }
}

size_t Decoder::decode_weight_bytes() const {
  size_t n = bytes(lm_head);
  for (auto& L : layers) {
    n += bytes(L.q) + bytes(L.k) + bytes(L.v) + bytes(L.o);
    if (!L.moe) {
      n += bytes(L.dense.gate) + bytes(L.dense.up) + bytes(L.dense.down);
    } else {
      n += bytes(L.router);
      if (!L.experts.empty()) {
        const auto& e = L.experts[0];
        n += static_cast<size_t>(cfg_.num_experts_per_tok) * (bytes(e.gate) + bytes(e.up) + bytes(e.down));
      }
      n += bytes(L.shared.gate) + bytes(L.shared.up) + bytes(L.shared.down);
    }
  }
  return n;
}

}  // namespace ocr
