// Memory-mapped safetensors files (single or sharded via an index), every header field validated.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common.h"

namespace ocr {

// How a file's bytes are held. Decode streams every weight once per token, and with 4 KB pages a cold expert's
// translations miss the TLB page after page (a page walk each, nested under a VM), which halved decode speed on
// the DeepSeek-OCR shape (bench engine: 20 against 48 tok/s, the same file). The mapping is 2 MB-aligned and
// advised for huge pages, so a page cache that holds the file in 2 MB folios maps them whole; a file the page
// cache holds in 4 KB folios (one just written: a download, `ocr models convert`) does not.
//   Map:  the file mapping only.
//   Copy: the bytes copied into anonymous memory advised for huge pages; the file's cache is released.
//   Auto: Map, except a file of at least kHugeCheckBytes whose sample windows, read in, lie under half in huge
//         pages is copied (when the kernel gives anonymous memory huge pages at all); the copy releases
//         the file's page cache, so the next load reads it afresh in huge folios and maps it.
enum class WeightPages { Auto, Map, Copy };
constexpr size_t kHugeCheckBytes = size_t{64} << 20;

// One mapped file; tensors point into the mapping, which lives as long as this object.
class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::string& path,
                           WeightPages pages = WeightPages::Map);  // throws DecoderError("BAD_WEIGHTS", ...)
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;
  const std::map<std::string, TensorView>& tensors() const { return tensors_; }
  const std::string& path() const { return path_; }
  size_t size() const { return size_; }
  // Bytes of the file held in huge pages now (/proc/self/smaps; 0 where it cannot be read), and whether the
  // bytes were copied out of the file mapping.
  size_t huge_bytes() const;
  bool copied() const { return copied_; }

 private:
  void copy_out(int fd);
  double mapped_huge_share() const;
  void release();
  std::string path_;
  void* map_ = nullptr;
  size_t size_ = 0;
  void* reserve_ = nullptr;  // the 2 MB-aligned reservation the bytes live in
  size_t reserved_ = 0;
  bool copied_ = false;
  std::map<std::string, TensorView> tensors_;
};

// All tensors of a checkpoint by name. `paths` are .safetensors files or one *.index.json.
class WeightStore {
 public:
  explicit WeightStore(const std::vector<std::string>& paths, WeightPages pages = WeightPages::Auto);
  const TensorView* find(const std::string& name) const;
  // Throws BAD_WEIGHTS naming the tensor when it is missing or its shape differs.
  const TensorView& require(const std::string& name, const std::vector<int64_t>& shape) const;
  size_t mapped_bytes() const;
  size_t huge_bytes() const;    // of all files, now
  size_t copied_bytes() const;  // of the files copied into anonymous memory
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, std::pair<const SafetensorsFile*, TensorView>> all_;
};

}  // namespace ocr
