// Declarations shared by the product addon's files: class registration, the decoder behind a NativeDecoder.
#pragma once
#include <napi.h>

#include <memory>
#include <string>

#include "../../ops/common.h"
#include "../../ops/decoder.h"
#include "napi_util.h"

namespace ocrnative {

void InitDecoder(Napi::Env env, Napi::Object exports);
void InitSession(Napi::Env env, Napi::Object exports);

// Unwraps the native decoder held by a JS NativeDecoder object (throws a TypeError otherwise).
std::shared_ptr<ocr::Decoder> DecoderFrom(const Napi::Value& v);

}  // namespace ocrnative
