// Op-level surface for tests and the benchmark (bench addon only): runs one kernel set on JS buffers (no model needed).
#include <napi.h>

#include <cstring>

#include "../../ops/attention.h"
#include "../../ops/routing.h"
#include "../../ops/select.h"
#include "../src/napi_util.h"
#include "bandwidth.h"

namespace ocrbench {
namespace {

using ocrnative::MakeError;
using ocrnative::ParseDType;

const ocr::Kernels& KernelsArg(const Napi::Value& v) {
  try {
    return ocr::kernels_select(v.As<Napi::String>().Utf8Value().c_str());
  } catch (const ocr::DecoderError& e) {
    throw MakeError(v.Env(), e.code, e.what());
  }
}

int64_t Int(const Napi::Value& v) { return v.As<Napi::Number>().Int64Value(); }

// linearRows(kernels, x: Float32Array [n, in], n, in, wDtype, w: Uint8Array [rows x row bytes], o0, o1)
//   -> Float32Array [n, o1 - o0]. Weights may also be block-quantised ("q8_0", "q4_1": rows of whole 32-weight blocks).
Napi::Value LinearRows(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ocr::Kernels& k = KernelsArg(info[0]);
  auto x = info[1].As<Napi::Float32Array>();
  const int64_t n = Int(info[2]), in = Int(info[3]);
  const std::string wname = info[4].IsString() ? info[4].As<Napi::String>().Utf8Value() : "";
  const ocr::DType dt = wname == "q8_0"   ? ocr::DType::Q8_0
                        : wname == "q4_1" ? ocr::DType::Q4_1
                                          : ParseDType(env, info[4], "wDtype");
  auto w = info[5].As<Napi::Uint8Array>();
  const int64_t o0 = Int(info[6]), o1 = Int(info[7]);
  if (ocr::dtype_is_quantized(dt) && in % ocr::kQuantBlock != 0)
    throw MakeError(env, "BAD_INPUT", "linearRows: quantised rows must hold whole blocks of 32 weights");
  if (static_cast<int64_t>(x.ElementLength()) < n * in ||
      w.ByteLength() < static_cast<size_t>(o1) * ocr::dtype_row_bytes(dt, in) || o0 > o1)
    throw MakeError(env, "BAD_INPUT", "linearRows: buffer sizes do not match the shapes");
  auto y = Napi::Float32Array::New(env, static_cast<size_t>(n * (o1 - o0)));
  k.linear_rows(x.Data(), in, n, in, dt, w.Data(), o0, o1, y.Data(), o1 - o0);
  return y;
}

// attention(kernels, q [nq,heads,d], nq, heads, kvHeads, d, kvDtype, k [cap, kvHeads*d], v, slots, visible,
//           threads, path?); path: "auto" (default: blocked from ocr::kBlockedMinQueries queries on), "per-query"
//           or "blocked".
Napi::Value Attention(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string set = info[0].As<Napi::String>().Utf8Value();
  auto q = info[1].As<Napi::Float32Array>();
  const int64_t nq = Int(info[2]), heads = Int(info[3]), kv_heads = Int(info[4]), d = Int(info[5]);
  ocr::DType dt = ParseDType(env, info[6], "kvDtype");
  auto kf = info[7].As<Napi::Float32Array>();
  auto vf = info[8].As<Napi::Float32Array>();
  auto slots = info[9].As<Napi::Int32Array>();
  auto visible = info[10].As<Napi::Int32Array>();
  const int threads = static_cast<int>(Int(info[11]));
  ocr::KvLayer kv;
  kv.dtype = dt;
  kv.kv_heads = kv_heads;
  kv.head_dim = d;
  const int64_t cap = static_cast<int64_t>(kf.ElementLength()) / (kv_heads * d);
  for (size_t i = 0; i < slots.ElementLength(); i++)
    if (slots[i] < 0 || slots[i] >= cap) throw MakeError(env, "BAD_INPUT", "attention: slot out of range");
  for (size_t i = 0; i < visible.ElementLength(); i++)
    if (visible[i] < 0 || static_cast<size_t>(visible[i]) > slots.ElementLength())
      throw MakeError(env, "BAD_INPUT", "attention: visible count out of range");
  kv.grow(cap);
  const ocr::Kernels& r = ocr::kernels_ref();
  for (int64_t s = 0; s < cap; s++)  // input rows are [slot][kv_heads * d]; the cache is head-major
    for (int64_t g = 0; g < kv_heads; g++) {
      r.store(dt, kf.Data() + (s * kv_heads + g) * d, kv.k.data() + kv.offset(g, s), d);
      r.store(dt, vf.Data() + (s * kv_heads + g) * d, kv.v.data() + kv.offset(g, s), d);
    }
  auto out = Napi::Float32Array::New(env, static_cast<size_t>(nq * heads * d));
  if (set == "reference") {
    ocr::attention_ref(q.Data(), nq, heads, kv_heads, d, kv, slots.Data(), visible.Data(), out.Data());
  } else {
    ocr::AttentionPath path = ocr::AttentionPath::Auto;
    if (info.Length() > 12 && !info[12].IsUndefined()) {
      const std::string p = info[12].As<Napi::String>().Utf8Value();
      if (p == "per-query")
        path = ocr::AttentionPath::PerQuery;
      else if (p == "blocked")
        path = ocr::AttentionPath::Blocked;
      else if (p != "auto")
        throw MakeError(env, "BAD_INPUT", "attention: path must be auto, per-query or blocked");
    }
    ocr::ThreadPool pool(threads);
    ocr::attention(KernelsArg(info[0]), pool, 0, q.Data(), nq, heads, kv_heads, d, kv, slots.Data(), visible.Data(),
                   out.Data(), nullptr, path);
  }
  return out;
}

// siluMul(kernels, g: Float32Array, u: Float32Array) -> Float32Array: silu(g) * u element-wise.
Napi::Value SiluMul(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ocr::Kernels& k = KernelsArg(info[0]);
  auto g = info[1].As<Napi::Float32Array>();
  auto u = info[2].As<Napi::Float32Array>();
  if (g.ElementLength() != u.ElementLength()) throw MakeError(env, "BAD_INPUT", "siluMul: g and u differ in length");
  auto h = Napi::Float32Array::New(env, g.ElementLength());
  k.silu_mul(g.Data(), u.Data(), h.Data(), static_cast<int64_t>(g.ElementLength()));
  return h;
}

// routeTopk(logits: Float32Array [E], k, normTopk, scale) -> { ids: Int32Array, weights: Float32Array }
Napi::Value RouteTopk(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto logits = info[0].As<Napi::Float32Array>();
  const int64_t k = Int(info[1]);
  if (k < 1 || k > static_cast<int64_t>(logits.ElementLength()))
    throw MakeError(env, "BAD_INPUT", "routeTopk: k out of range");
  auto ids = Napi::Int32Array::New(env, static_cast<size_t>(k));
  auto w = Napi::Float32Array::New(env, static_cast<size_t>(k));
  ocr::route_topk(logits.Data(), static_cast<int64_t>(logits.ElementLength()), k, info[2].ToBoolean().Value(),
                  info[3].As<Napi::Number>().FloatValue(), ids.Data(), w.Data());
  Napi::Object o = Napi::Object::New(env);
  o.Set("ids", ids);
  o.Set("weights", w);
  return o;
}

// focalSelect(probs: Float32Array [heads, n], heads, k, reference) -> Int32Array [k]: focal pruning's choice
// (head mean in f64, then the top k ascending, ties to the lowest index) by the linear selection or a full sort.
Napi::Value FocalSelect(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto probs = info[0].As<Napi::Float32Array>();
  const int64_t heads = Int(info[1]), k = Int(info[2]);
  if (heads < 1 || probs.ElementLength() % static_cast<size_t>(heads) != 0)
    throw MakeError(env, "BAD_INPUT", "focalSelect: probs is not [heads, n]");
  const int64_t n = static_cast<int64_t>(probs.ElementLength()) / heads;
  if (k < 0 || k > n) throw MakeError(env, "BAD_INPUT", "focalSelect: k out of range");
  std::vector<double> mean(static_cast<size_t>(n)), scratch;
  ocr::head_mean(probs.Data(), heads, n, mean.data());
  auto out = Napi::Int32Array::New(env, static_cast<size_t>(k));
  if (info[3].ToBoolean().Value())
    ocr::topk_indices_ref(mean.data(), n, k, out.Data());
  else
    ocr::topk_indices(mean.data(), n, k, scratch, out.Data());
  return out;
}

// toDtype(dtype, x: Float32Array) -> Uint8Array of the converted elements
Napi::Value ToDtype(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ocr::DType dt = ParseDType(env, info[0], "dtype");
  auto x = info[1].As<Napi::Float32Array>();
  auto out = Napi::Uint8Array::New(env, x.ElementLength() * ocr::dtype_size(dt));
  ocr::kernels_ref().store(dt, x.Data(), out.Data(), static_cast<int64_t>(x.ElementLength()));
  return out;
}

// measureBandwidth(megabytes, threads, repeats) -> GB/s
Napi::Value MeasureBandwidth(const Napi::CallbackInfo& info) {
  ocr::ThreadPool pool(static_cast<int>(Int(info[1])));
  const double gbs =
      measure_read_bandwidth(pool, static_cast<size_t>(Int(info[0])) << 20, static_cast<int>(Int(info[2])));
  return Napi::Number::New(info.Env(), gbs);
}

}  // namespace

void InitTesting(Napi::Env env, Napi::Object exports) {
  Napi::Object t = Napi::Object::New(env);
  t.Set("linearRows", Napi::Function::New(env, LinearRows));
  t.Set("attention", Napi::Function::New(env, Attention));
  t.Set("siluMul", Napi::Function::New(env, SiluMul));
  t.Set("routeTopk", Napi::Function::New(env, RouteTopk));
  t.Set("focalSelect", Napi::Function::New(env, FocalSelect));
  t.Set("toDtype", Napi::Function::New(env, ToDtype));
  t.Set("measureBandwidth", Napi::Function::New(env, MeasureBandwidth));
  // setInt8Decode(on, set?) -> whether the int8 decode path now runs for kernel set `set` (default: any set; false
  // where the CPU lacks AVX-VNNI and AVX512-VNNI).
  t.Set("setInt8Decode", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
          ocr::set_int8_decode(info[0].ToBoolean().Value());
          const std::string set = info.Length() > 1 && info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "";
          return Napi::Boolean::New(info.Env(), ocr::int8_decode_enabled(set.empty() ? nullptr : set.c_str()));
        }));
  // setInt8Q4Vbmi(on) -> whether q4_1 decode now runs the AVX512-VBMI loop (false where the CPU lacks it).
  t.Set("setInt8Q4Vbmi", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
          ocr::set_int8_q4_vbmi(info[0].ToBoolean().Value());
          return Napi::Boolean::New(info.Env(), ocr::int8_q4_vbmi());
        }));
  exports.Set("testing", t);
}

}  // namespace ocrbench
