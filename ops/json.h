// A minimal JSON reader for safetensors headers and index files (untrusted input: depth- and size-limited).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ocr {

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  bool is_integer = false;  // the literal had no fraction or exponent
  std::string string;
  std::vector<Json> array;
  std::vector<std::pair<std::string, Json>> object;  // in document order
  const Json* get(const std::string& key) const {
    for (auto& kv : object)
      if (kv.first == key) return &kv.second;
    return nullptr;
  }
};

// Throws std::runtime_error with the byte offset of the first problem.
Json parse_json(const char* text, size_t length);

}  // namespace ocr
