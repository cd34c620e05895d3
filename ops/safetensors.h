// Memory-mapped safetensors files (single or sharded via an index), every header field validated.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common.h"

namespace ocr {

// One mapped file; tensors point into the mapping, which lives as long as this object.
class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::string& path);  // throws DecoderError("BAD_WEIGHTS", ...)
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;
  const std::map<std::string, TensorView>& tensors() const { return tensors_; }
  const std::string& path() const { return path_; }
  size_t size() const { return size_; }

 private:
  std::string path_;
  void* map_ = nullptr;
  size_t size_ = 0;
  std::map<std::string, TensorView> tensors_;
};

// All tensors of a checkpoint by name. `paths` are .safetensors files or one *.index.json.
class WeightStore {
 public:
  explicit WeightStore(const std::vector<std::string>& paths);
  const TensorView* find(const std::string& name) const;
  // Throws BAD_WEIGHTS naming the tensor when it is missing or its shape differs.
  const TensorView& require(const std::string& name, const std::vector<int64_t>& shape) const;
  size_t mapped_bytes() const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, std::pair<const SafetensorsFile*, TensorView>> all_;
};

}  // namespace ocr
