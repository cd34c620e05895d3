// Helpers both addons share: errors carrying a code, dtype arguments.
#include "napi_util.h"

namespace ocrnative {

Napi::Error MakeError(Napi::Env env, const std::string& code, const std::string& message) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("code", Napi::String::New(env, code));
  return e;
}

ocr::DType ParseDType(Napi::Env env, const Napi::Value& v, const char* what) {
  std::string s = v.IsString() ? v.As<Napi::String>().Utf8Value() : "";
  if (s == "f32") return ocr::DType::F32;
  if (s == "f16") return ocr::DType::F16;
  if (s == "bf16") return ocr::DType::BF16;
  throw MakeError(env, "BAD_OPTION", std::string("Expected 'f32', 'f16' or 'bf16' for ") + what);
}

}  // namespace ocrnative
