// NativeSession: each heavy call (extend, retire, generate) runs in an AsyncWorker off the JS thread;
// options are copied into plain structs first, generated tokens stream back through a progress queue.
#include <napi.h>

#include <atomic>
#include <cstring>

#include "../../ops/session.h"
#include "bindings.h"

namespace ocrnative {
namespace {

struct SessionState {
  std::shared_ptr<ocr::Decoder> decoder;
  std::unique_ptr<ocr::Session> session;
  std::atomic<bool> busy{false};
  std::atomic<bool> cancel{false};
};

// Settles a promise with a typed error (code + message) or a value built on the JS thread.
class PromiseWorker : public Napi::AsyncWorker {
 public:
  PromiseWorker(Napi::Env env, std::shared_ptr<SessionState> st, Napi::Object self)
      : Napi::AsyncWorker(env, "ocr-decoder"), deferred(Napi::Promise::Deferred::New(env)), state(std::move(st)) {
    self_ref = Napi::Persistent(self);
  }
  Napi::Promise::Deferred deferred;
  std::shared_ptr<SessionState> state;
  Napi::ObjectReference self_ref;  // keeps the JS session (and its decoder) alive while running
  std::string code = "NATIVE_ERROR";

  void Execute() final {
    try {
      Run();
    } catch (const ocr::DecoderError& e) {
      code = e.code;
      SetError(e.what());
    } catch (const std::bad_alloc&) {
      code = "OUT_OF_MEMORY";
      SetError("out of memory");
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  virtual void Run() = 0;
  virtual Napi::Value Result(Napi::Env env) { return env.Undefined(); }
  void OnOK() final {
    state->busy = false;
    deferred.Resolve(Result(Env()));
  }
  void OnError(const Napi::Error& e) final {
    state->busy = false;
    deferred.Reject(MakeError(Env(), code, e.Message()).Value());
  }
};

class ExtendWorker : public PromiseWorker {
 public:
  using PromiseWorker::PromiseWorker;
  std::vector<int32_t> tokens;
  std::vector<float> embeds;
  ocr::Capture capture;
  void Run() override {
    const int64_t H = state->decoder->config().hidden_size;
    state->session->extend(tokens.data(), static_cast<int64_t>(tokens.size()), embeds.data(),
                           static_cast<int64_t>(embeds.size()) / H, &capture);
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object o = Napi::Object::New(env);
    auto f32 = [&](const std::vector<float>& v) {
      auto a = Napi::Float32Array::New(env, v.size());
      if (!v.empty()) std::memcpy(a.Data(), v.data(), v.size() * 4);
      return a;
    };
    o.Set("logits", f32(capture.logits));
    if (capture.hidden) o.Set("hidden", f32(capture.hidden_states));
    return o;
  }
};

class RetireWorker : public PromiseWorker {
 public:
  using PromiseWorker::PromiseWorker;
  int64_t begin = 0, end = 0;
  void Run() override { state->session->retire(begin, end); }
};

class GenerateWorker : public Napi::AsyncProgressQueueWorker<int32_t> {
 public:
  GenerateWorker(Napi::Env env, std::shared_ptr<SessionState> st, Napi::Object self, Napi::Function on_tokens)
      : Napi::AsyncProgressQueueWorker<int32_t>(env, "ocr-decoder-generate"),
        deferred(Napi::Promise::Deferred::New(env)),
        state(std::move(st)) {
    self_ref = Napi::Persistent(self);
    callback = Napi::Persistent(on_tokens);
  }
  Napi::Promise::Deferred deferred;
  std::shared_ptr<SessionState> state;
  Napi::ObjectReference self_ref;
  Napi::FunctionReference callback;
  ocr::GenerateOptions opts;
  std::string reason, code = "NATIVE_ERROR";
  int64_t count = 0;

  void Execute(const ExecutionProgress& progress) override {
    try {
      reason = state->session->generate(
          opts,
          [&](int32_t t) {
            count++;
            progress.Send(&t, 1);
          },
          &state->cancel);
    } catch (const ocr::DecoderError& e) {
      code = e.code;
      SetError(e.what());
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnProgress(const int32_t* data, size_t n) override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    auto arr = Napi::Int32Array::New(env, n);
    std::memcpy(arr.Data(), data, n * 4);
    callback.Call({arr});
  }
  void OnOK() override {
    state->busy = false;
    Napi::Object o = Napi::Object::New(Env());
    o.Set("reason", reason);
    o.Set("count", static_cast<double>(count));
    if (opts.alternatives) {
      // each generated token's runner-ups and their logit margins, kCount a token (Session::alternatives)
      const auto& alts = state->session->alternatives();
      constexpr size_t K = ocr::Alternative::kCount;
      auto tokens = Napi::Int32Array::New(Env(), K * alts.size());
      auto margins = Napi::Float32Array::New(Env(), K * alts.size());
      for (size_t i = 0; i < alts.size(); i++)
        for (size_t k = 0; k < K; k++) {
          tokens[K * i + k] = alts[i].token[k];
          margins[K * i + k] = alts[i].margin[k];
        }
      o.Set("runnerUps", tokens);
      o.Set("margins", margins);
    }
    deferred.Resolve(o);
  }
  void OnError(const Napi::Error& e) override {
    state->busy = false;
    deferred.Reject(MakeError(Env(), code, e.Message()).Value());
  }
};

class SessionWrap : public Napi::ObjectWrap<SessionWrap> {
 public:
  std::shared_ptr<SessionState> state = std::make_shared<SessionState>();
  Napi::ObjectReference decoder_ref;

  // new NativeSession(decoder, { kvDtype, window })
  explicit SessionWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SessionWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 2 || !info[1].IsObject()) throw Napi::TypeError::New(env, "NativeSession(decoder, options)");
    state->decoder = DecoderFrom(info[0]);
    decoder_ref = Napi::Persistent(info[0].As<Napi::Object>());
    Napi::Object o = info[1].As<Napi::Object>();
    ocr::SessionOptions opts;
    opts.kv_dtype = ParseDType(env, o.Get("kvDtype"), "option kvDtype");
    if (o.Get("window").IsNumber()) opts.window = o.Get("window").As<Napi::Number>().Int32Value();
    if (o.Get("focal").IsObject()) {  // { keep, layers, warmup }
      Napi::Object f = o.Get("focal").As<Napi::Object>();
      opts.focal.keep = f.Get("keep").As<Napi::Number>().DoubleValue();
      opts.focal.layers = f.Get("layers").As<Napi::Number>().Int32Value();
      opts.focal.warmup = f.Get("warmup").As<Napi::Number>().Int32Value();
    }
    opts.record_fixations = o.Get("recordFixations").ToBoolean().Value();
    try {
      state->session = std::make_unique<ocr::Session>(*state->decoder, opts);
    } catch (const ocr::DecoderError& e) {
      throw MakeError(env, e.code, e.what());
    }
  }

  void Acquire(Napi::Env env) {
    if (!state->session) throw MakeError(env, "BAD_STATE", "the session was disposed");
    bool expected = false;
    if (!state->busy.compare_exchange_strong(expected, true))
      throw MakeError(env, "BUSY", "the session is already running a call; await it before starting another");
    state->cancel = false;
  }

  // extend(tokens: Int32Array (-1 = next embedding row), embeds: Float32Array | null, capture: { hidden, allLogits })
  Napi::Value Extend(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 3 || !info[0].IsTypedArray() || !info[2].IsObject())
      throw Napi::TypeError::New(env, "extend(tokens, embeds, capture)");
    auto tokens = info[0].As<Napi::Int32Array>();
    Acquire(env);
    auto* w = new ExtendWorker(env, state, Value());
    w->tokens.assign(tokens.Data(), tokens.Data() + tokens.ElementLength());
    if (info[1].IsTypedArray()) {
      auto e = info[1].As<Napi::Float32Array>();
      w->embeds.assign(e.Data(), e.Data() + e.ElementLength());
    }
    Napi::Object cap = info[2].As<Napi::Object>();
    w->capture.hidden = cap.Get("hidden").ToBoolean().Value();
    w->capture.all_logits = cap.Get("allLogits").ToBoolean().Value();
    auto promise = w->deferred.Promise();
    w->Queue();
    return promise;
  }

  Napi::Value Retire(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Acquire(env);
    auto* w = new RetireWorker(env, state, Value());
    w->begin = info[0].As<Napi::Number>().Int64Value();
    w->end = info[1].As<Napi::Number>().Int64Value();
    auto promise = w->deferred.Promise();
    w->Queue();
    return promise;
  }

  // generate({ maxTokens, stopTokens, noRepeat: { n, lookback, exempt }, maxRun, ban, alternatives },
  // onTokens(Int32Array))
  Napi::Value Generate(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 2 || !info[0].IsObject() || !info[1].IsFunction())
      throw Napi::TypeError::New(env, "generate(options, onTokens)");
    Napi::Object o = info[0].As<Napi::Object>();
    Acquire(env);
    auto* w = new GenerateWorker(env, state, Value(), info[1].As<Napi::Function>());
    w->opts.max_tokens = o.Get("maxTokens").As<Napi::Number>().Int32Value();
    auto ints = [](const Napi::Value& v) {
      std::vector<int32_t> out;
      if (v.IsTypedArray()) {
        auto a = v.As<Napi::Int32Array>();
        out.assign(a.Data(), a.Data() + a.ElementLength());
      }
      return out;
    };
    w->opts.stop_tokens = ints(o.Get("stopTokens"));
    if (o.Get("noRepeat").IsObject()) {
      Napi::Object nr = o.Get("noRepeat").As<Napi::Object>();
      w->opts.no_repeat.n = nr.Get("n").As<Napi::Number>().Int32Value();
      w->opts.no_repeat.lookback = nr.Get("lookback").As<Napi::Number>().Int32Value();
      w->opts.no_repeat.exempt = ints(nr.Get("exempt"));
    }
    w->opts.max_run = ints(o.Get("maxRun"));
    w->opts.ban = ints(o.Get("ban"));
    w->opts.alternatives = o.Get("alternatives").ToBoolean().Value();
    auto promise = w->deferred.Promise();
    w->Queue();
    return promise;
  }

  Napi::Value Cancel(const Napi::CallbackInfo& info) {
    state->cancel = true;
    return info.Env().Undefined();
  }

  // Frees the KV cache now instead of at garbage collection.
  Napi::Value Dispose(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (state->busy) throw MakeError(env, "BUSY", "the session is running a call; cancel or await it before disposing");
    state->session.reset();
    return env.Undefined();
  }

  Napi::Value Stats(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!state->session) throw MakeError(env, "BAD_STATE", "the session was disposed");
    if (state->busy) throw MakeError(env, "BUSY", "the session is running a call");
    Napi::Object o = Napi::Object::New(env);
    auto& s = *state->session;
    o.Set("length", static_cast<double>(s.length()));
    o.Set("liveEntries", static_cast<double>(s.live_entries()));
    o.Set("cacheBytes", static_cast<double>(s.cache_bytes()));
    o.Set("busy", state->busy.load());
    const auto& a = s.attention_stats();
    o.Set("decodeSteps", static_cast<double>(a.decode_steps));
    o.Set("decodeMs", a.decode_seconds * 1e3);
    o.Set("attentionMs", a.attention_seconds * 1e3);
    const auto layers = s.focal_layers();
    auto fl = Napi::Array::New(env, layers.size());
    for (size_t i = 0; i < layers.size(); i++) fl.Set(static_cast<uint32_t>(i), layers[i]);
    o.Set("focalLayers", fl);
    return o;
  }

  // setFocal({ keep, layers, warmup }) or setFocal(null) (off); synchronous (bookkeeping only).
  Napi::Value SetFocal(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!state->session) throw MakeError(env, "BAD_STATE", "the session was disposed");
    if (state->busy) throw MakeError(env, "BUSY", "the session is running a call");
    ocr::SessionOptions::Focal f;
    if (info.Length() > 0 && info[0].IsObject()) {
      Napi::Object o = info[0].As<Napi::Object>();
      f.keep = o.Get("keep").As<Napi::Number>().DoubleValue();
      f.layers = o.Get("layers").As<Napi::Number>().Int32Value();
      f.warmup = o.Get("warmup").As<Napi::Number>().Int32Value();
    }
    try {
      state->session->set_focal(f);
    } catch (const ocr::DecoderError& e) {
      throw MakeError(env, e.code, e.what());
    }
    return env.Undefined();
  }

  // [{ position, visual: Float64Array }] recorded since the last call.
  Napi::Value TakeFixations(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!state->session) throw MakeError(env, "BAD_STATE", "the session was disposed");
    if (state->busy) throw MakeError(env, "BUSY", "the session is running a call");
    auto fx = state->session->take_fixations();
    auto arr = Napi::Array::New(env, fx.size());
    for (size_t i = 0; i < fx.size(); i++) {
      Napi::Object o = Napi::Object::New(env);
      o.Set("position", static_cast<double>(fx[i].position));
      auto v = Napi::Float64Array::New(env, fx[i].visual.size());
      for (size_t j = 0; j < fx[i].visual.size(); j++) v[j] = static_cast<double>(fx[i].visual[j]);
      o.Set("visual", v);
      arr.Set(static_cast<uint32_t>(i), o);
    }
    return arr;
  }

  Napi::Value LastLogits(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (state->busy) throw MakeError(env, "BUSY", "the session is running a call");
    if (!state->session) throw MakeError(env, "BAD_STATE", "the session was disposed");
    const auto& v = state->session->last_logits();
    auto a = Napi::Float32Array::New(env, v.size());
    if (!v.empty()) std::memcpy(a.Data(), v.data(), v.size() * 4);
    return a;
  }
};

}  // namespace

void InitSession(Napi::Env env, Napi::Object exports) {
  Napi::Function f =
      SessionWrap::DefineClass(env, "NativeSession",
                               {SessionWrap::InstanceMethod("extend", &SessionWrap::Extend),
                                SessionWrap::InstanceMethod("retire", &SessionWrap::Retire),
                                SessionWrap::InstanceMethod("generate", &SessionWrap::Generate),
                                SessionWrap::InstanceMethod("cancel", &SessionWrap::Cancel),
                                SessionWrap::InstanceMethod("stats", &SessionWrap::Stats),
                                SessionWrap::InstanceMethod("takeFixations", &SessionWrap::TakeFixations),
                                SessionWrap::InstanceMethod("setFocal", &SessionWrap::SetFocal),
                                SessionWrap::InstanceMethod("dispose", &SessionWrap::Dispose),
                                SessionWrap::InstanceMethod("lastLogits", &SessionWrap::LastLogits)});
  exports.Set("NativeSession", f);
}

}  // namespace ocrnative
