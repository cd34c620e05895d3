// Declarations shared by the product addon's files: class registration, the model behind a NativeModel.
#pragma once
#include <napi.h>

#include <memory>
#include <string>

#include "../../ops/common.h"
#include "../../ops/model.h"
#include "napi_util.h"

namespace ocrnative {

void InitModel(Napi::Env env, Napi::Object exports);
void InitSession(Napi::Env env, Napi::Object exports);

// Unwraps the native model held by a JS NativeModel object (throws a TypeError otherwise).
std::shared_ptr<ocr::Model> ModelFrom(const Napi::Value& v);

}  // namespace ocrnative
