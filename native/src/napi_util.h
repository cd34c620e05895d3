// Helpers both addons (the product's ocr_decoder and the bench/test ocr_bench) share.
#pragma once
#include <napi.h>

#include <string>

#include "../../ops/common.h"

namespace ocrnative {

// A JS Error carrying a stable `code` (BAD_WEIGHTS, BAD_INPUT, BUSY, ...).
Napi::Error MakeError(Napi::Env env, const std::string& code, const std::string& message);

// 'f32' | 'f16' | 'bf16' -> DType (BAD_OPTION naming `what` otherwise).
ocr::DType ParseDType(Napi::Env env, const Napi::Value& v, const char* what);

}  // namespace ocrnative
