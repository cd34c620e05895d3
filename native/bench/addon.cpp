// N-API entry point of the bench/test addon (ocr_bench.node): the op-level testing surface (one kernel set on JS
// buffers, no model) and the bandwidth probe. Loaded by the kernel tests and `ocr bench decoder`, never by `ocr parse`.
#include <napi.h>

#include "../../ops/cpu/kernels.h"

namespace ocrbench {
void InitTesting(Napi::Env env, Napi::Object exports);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  ocrbench::InitTesting(env, exports);
  exports.Set("cpuFeatures", Napi::String::New(env, ocr::cpu_features_string()));
  return exports;
}

NODE_API_MODULE(ocr_bench, Init)
