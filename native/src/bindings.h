// Declarations shared by the addon's files: class registration and error conversion.
#pragma once
#include <napi.h>

#include <memory>
#include <string>

#include "../../ops/common.h"
#include "../../ops/model.h"

namespace ocrnative {

void InitModel(Napi::Env env, Napi::Object exports);
void InitSession(Napi::Env env, Napi::Object exports);
void InitTesting(Napi::Env env, Napi::Object exports);

// A JS Error carrying a stable `code` (BAD_WEIGHTS, BAD_INPUT, BUSY, ...).
Napi::Error MakeError(Napi::Env env, const std::string& code, const std::string& message);

// Unwraps the native model held by a JS NativeModel object (throws a TypeError otherwise).
std::shared_ptr<ocr::Model> ModelFrom(const Napi::Value& v);

ocr::DType ParseDType(Napi::Env env, const Napi::Value& v, const char* what);

}  // namespace ocrnative
