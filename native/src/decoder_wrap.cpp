// NativeDecoder: maps and validates a checkpoint (config validated in TypeScript; the C++ re-checks shapes).
#include <napi.h>

#include "bindings.h"

namespace ocrnative {

namespace {

int GetInt(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsNumber())
    throw MakeError(o.Env(), "BAD_CONFIG", std::string("decoder config: '") + key + "' must be a number");
  return v.As<Napi::Number>().Int32Value();
}
float GetFloat(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsNumber())
    throw MakeError(o.Env(), "BAD_CONFIG", std::string("decoder config: '") + key + "' must be a number");
  return v.As<Napi::Number>().FloatValue();
}
bool GetBool(const Napi::Object& o, const char* key) { return o.Get(key).ToBoolean().Value(); }

class DecoderWrap : public Napi::ObjectWrap<DecoderWrap> {
 public:
  static Napi::FunctionReference ctor;
  std::shared_ptr<ocr::Decoder> decoder;

  // new NativeDecoder(config, weightPaths: string[], { threads, kernels })
  explicit DecoderWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DecoderWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 3 || !info[0].IsObject() || !info[1].IsArray() || !info[2].IsObject())
      throw Napi::TypeError::New(env, "NativeDecoder(config, weightPaths, options)");
    Napi::Object c = info[0].As<Napi::Object>();
    ocr::DecoderConfig cfg;
    cfg.vocab_size = GetInt(c, "vocab_size");
    cfg.hidden_size = GetInt(c, "hidden_size");
    cfg.num_hidden_layers = GetInt(c, "num_hidden_layers");
    cfg.num_attention_heads = GetInt(c, "num_attention_heads");
    cfg.num_key_value_heads = GetInt(c, "num_key_value_heads");
    cfg.head_dim = GetInt(c, "head_dim");
    cfg.intermediate_size = GetInt(c, "intermediate_size");
    cfg.moe_intermediate_size = GetInt(c, "moe_intermediate_size");
    cfg.n_routed_experts = GetInt(c, "n_routed_experts");
    cfg.num_experts_per_tok = GetInt(c, "num_experts_per_tok");
    cfg.n_shared_experts = GetInt(c, "n_shared_experts");
    cfg.first_k_dense_replace = GetInt(c, "first_k_dense_replace");
    cfg.norm_topk_prob = GetBool(c, "norm_topk_prob");
    cfg.routed_scaling_factor = GetFloat(c, "routed_scaling_factor");
    cfg.rms_norm_eps = GetFloat(c, "rms_norm_eps");
    cfg.rope_theta = GetFloat(c, "rope_theta");
    cfg.tie_word_embeddings = GetBool(c, "tie_word_embeddings");
    std::vector<std::string> paths;
    Napi::Array arr = info[1].As<Napi::Array>();
    for (uint32_t i = 0; i < arr.Length(); i++) paths.push_back(arr.Get(i).As<Napi::String>().Utf8Value());
    Napi::Object o = info[2].As<Napi::Object>();
    ocr::DecoderOptions opts;
    if (o.Get("threads").IsNumber()) opts.threads = o.Get("threads").As<Napi::Number>().Int32Value();
    if (o.Get("kernels").IsString()) opts.kernels = o.Get("kernels").As<Napi::String>().Utf8Value();
    if (o.Get("minParallelWork").IsNumber())
      opts.min_parallel_macs = o.Get("minParallelWork").As<Napi::Number>().Int64Value();
    if (o.Get("pages").IsString()) {
      const std::string p = o.Get("pages").As<Napi::String>().Utf8Value();
      opts.pages = p == "map" ? ocr::WeightPages::Map : p == "copy" ? ocr::WeightPages::Copy : ocr::WeightPages::Auto;
    }
    try {
      decoder = std::make_shared<ocr::Decoder>(cfg, paths, opts);
    } catch (const ocr::DecoderError& e) {
      throw MakeError(env, e.code, e.what());
    }
  }

  Napi::Value Info(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Object o = Napi::Object::New(env);
    o.Set("kernels", decoder->kernels().name);
    o.Set("threads", decoder->pool().size());
    o.Set("mappedBytes", static_cast<double>(decoder->store().mapped_bytes()));
    o.Set("copiedBytes", static_cast<double>(decoder->store().copied_bytes()));
    o.Set("decodeWeightBytes", static_cast<double>(decoder->decode_weight_bytes()));
    // The decoder layers' matrices (q8_0 / q4_1 in a quantised bundle); the embedding, norms and router stay float.
    o.Set("weightDtype",
          ocr::dtype_name(decoder->layers.empty() ? decoder->lm_head->dtype : decoder->layers[0].q->dtype));
    o.Set("embedDtype", ocr::dtype_name(decoder->embed_tokens->dtype));
    return o;
  }

  Napi::Value HugePageBytes(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(decoder->store().huge_bytes()));
  }
};

Napi::FunctionReference DecoderWrap::ctor;

}  // namespace

std::shared_ptr<ocr::Decoder> DecoderFrom(const Napi::Value& v) {
  if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(DecoderWrap::ctor.Value()))
    throw Napi::TypeError::New(v.Env(), "expected a NativeDecoder");
  return DecoderWrap::Unwrap(v.As<Napi::Object>())->decoder;
}

void InitDecoder(Napi::Env env, Napi::Object exports) {
  Napi::Function f =
      DecoderWrap::DefineClass(env, "NativeDecoder",
                               {DecoderWrap::InstanceMethod("info", &DecoderWrap::Info),
                                DecoderWrap::InstanceMethod("hugePageBytes", &DecoderWrap::HugePageBytes)});
  DecoderWrap::ctor = Napi::Persistent(f);
  exports.Set("NativeDecoder", f);
  exports.Set("cpuFeatures", Napi::String::New(env, ocr::cpu_features_string()));
}

}  // namespace ocrnative
