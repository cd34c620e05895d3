// N-API entry point: registers the model and session classes and the op-level testing surface.
#include <napi.h>

#include "bindings.h"

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  ocrnative::InitModel(env, exports);
  ocrnative::InitSession(env, exports);
  ocrnative::InitTesting(env, exports);
  return exports;
}

NODE_API_MODULE(ocr_engine, Init)
