// N-API entry point of the product addon (ocr_decoder.node): the decoder and session classes. The op-level testing
// surface and the bandwidth probe live in the bench addon (native/bench/, ocr_bench.node), which the product never
// loads.
#include <napi.h>

#include "bindings.h"

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  ocrnative::InitDecoder(env, exports);
  ocrnative::InitSession(env, exports);
  return exports;
}

NODE_API_MODULE(ocr_decoder, Init)
