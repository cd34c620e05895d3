// Parses and validates safetensors headers and maps the data read-only (no conversion of the file).
#include "safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "json.h"

namespace ocr {
namespace {

[[noreturn]] void bad(const std::string& path, const std::string& msg) {
  throw DecoderError("BAD_WEIGHTS", path + ": " + msg);
}

constexpr uint64_t kMaxHeader = 100ull << 20;  // the format's own limit

std::string shape_str(const std::vector<int64_t>& s) {
  std::string o = "[";
  for (size_t i = 0; i < s.size(); i++) o += (i ? "," : "") + std::to_string(s[i]);
  return o + "]";
}

std::string dirname_of(const std::string& p) {
  auto k = p.find_last_of('/');
  return k == std::string::npos ? std::string(".") : p.substr(0, k);
}

}  // namespace

SafetensorsFile::SafetensorsFile(const std::string& path) : path_(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) bad(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    bad(path, "cannot stat");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ < 8) {
    ::close(fd);
    bad(path, "file is " + std::to_string(size_) + " bytes, too short for a safetensors header");
  }
  map_ = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    bad(path, std::string("mmap failed: ") + std::strerror(errno));
  }
  try {
    const uint8_t* base = static_cast<const uint8_t*>(map_);
    uint64_t header_len = 0;
    for (int i = 7; i >= 0; i--) header_len = (header_len << 8) | base[i];
    if (header_len > kMaxHeader) bad(path, "header length " + std::to_string(header_len) + " exceeds the 100 MB limit");
    if (header_len > size_ - 8)
      bad(path, "header length " + std::to_string(header_len) + " runs past the end of the file (" +
                    std::to_string(size_) + " bytes): truncated?");
    Json header;
    try {
      header = parse_json(reinterpret_cast<const char*>(base + 8), static_cast<size_t>(header_len));
    } catch (const std::runtime_error& e) {
      bad(path, std::string("header is not valid JSON (") + e.what() + ")");
    }
    if (header.kind != Json::Object) bad(path, "header is not a JSON object");
    const uint64_t data_size = size_ - 8 - header_len;
    const uint8_t* data = base + 8 + header_len;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    // Block-quantised tensors (written by `ocr models quantize`): dtype U8, shape [rows, row bytes], and a metadata
    // entry "ocr.quant.<name>": "q8_0" | "q4_1"; they are bound with their logical shape [rows, cols].
    std::map<std::string, DType> quant;
    if (const Json* meta = header.get("__metadata__"); meta && meta->kind == Json::Object)
      for (auto& kv : meta->object) {
        if (kv.first.rfind("ocr.quant.", 0) != 0) continue;
        const std::string tname = kv.first.substr(10);
        if (kv.second.kind != Json::String || (kv.second.string != "q8_0" && kv.second.string != "q4_1"))
          bad(path, "metadata '" + kv.first + "' must be \"q8_0\" or \"q4_1\"");
        quant[tname] = kv.second.string == "q8_0" ? DType::Q8_0 : DType::Q4_1;
      }
    for (auto& kv : header.object) {
      const std::string& name = kv.first;
      if (name == "__metadata__") continue;
      const Json& info = kv.second;
      if (info.kind != Json::Object) bad(path, "tensor '" + name + "': entry is not an object");
      const Json* dt = info.get("dtype");
      const Json* sh = info.get("shape");
      const Json* off = info.get("data_offsets");
      if (!dt || dt->kind != Json::String) bad(path, "tensor '" + name + "': missing dtype");
      DType dtype;
      const auto q = quant.find(name);
      if (q != quant.end()) {
        if (dt->string != "U8")
          bad(path, "tensor '" + name + "': quantised as " + dtype_name(q->second) + " but stored as " + dt->string +
                        " (expected U8)");
        dtype = q->second;
      } else if (dt->string == "F32")
        dtype = DType::F32;
      else if (dt->string == "F16")
        dtype = DType::F16;
      else if (dt->string == "BF16")
        dtype = DType::BF16;
      else {
        // Other dtypes may sit in a checkpoint (e.g. int buffers); they are recorded as unusable.
        if (!off || off->kind != Json::Array) bad(path, "tensor '" + name + "': missing data_offsets");
        continue;
      }
      if (!sh || sh->kind != Json::Array || sh->array.size() > 8)
        bad(path, "tensor '" + name + "': shape must be an array of at most 8 dimensions");
      TensorView tv;
      tv.dtype = dtype;
      uint64_t count = 1;
      for (auto& d : sh->array) {
        if (d.kind != Json::Number || !d.is_integer || d.number < 0 || d.number > 9.0e15)
          bad(path, "tensor '" + name + "': shape has a non-integer or negative dimension");
        uint64_t v = static_cast<uint64_t>(d.number);
        if (v != 0 && count > (1ull << 50) / v) bad(path, "tensor '" + name + "': shape is implausibly large");
        count *= v;
        tv.shape.push_back(static_cast<int64_t>(v));
      }
      if (!off || off->kind != Json::Array || off->array.size() != 2)
        bad(path, "tensor '" + name + "': data_offsets must be [begin, end]");
      for (auto& o : off->array)
        if (o.kind != Json::Number || !o.is_integer || o.number < 0)
          bad(path, "tensor '" + name + "': data_offsets are not non-negative integers");
      uint64_t b = static_cast<uint64_t>(off->array[0].number), e = static_cast<uint64_t>(off->array[1].number);
      if (b > e) bad(path, "tensor '" + name + "': data_offsets begin > end");
      if (e > data_size)
        bad(path, "tensor '" + name + "': data_offsets end " + std::to_string(e) + " lies past the data section (" +
                      std::to_string(data_size) + " bytes): truncated file?");
      const uint64_t elem_bytes = dtype_is_quantized(dtype) ? 1 : dtype_size(dtype);
      if (e - b != count * elem_bytes)
        bad(path, "tensor '" + name + "': " + std::to_string(e - b) + " bytes for shape " + shape_str(tv.shape) +
                      " in " + dt->string + " (expected " + std::to_string(count * elem_bytes) + ")");
      if (dtype_is_quantized(dtype)) {  // [rows, row bytes] -> [rows, cols]
        const uint64_t block = dtype == DType::Q8_0 ? kQ8_0BlockBytes : kQ4_1BlockBytes;
        if (tv.shape.size() != 2 || tv.shape[1] % static_cast<int64_t>(block) != 0)
          bad(path, "tensor '" + name + "': a " + dtype_name(dtype) + " tensor must be [rows, a multiple of " +
                        std::to_string(block) + " bytes], not " + shape_str(tv.shape));
        tv.shape[1] = tv.shape[1] / static_cast<int64_t>(block) * kQuantBlock;
      }
      if (tensors_.count(name)) bad(path, "tensor '" + name + "' appears twice");
      tv.data = data + b;
      tensors_[name] = tv;
      if (e > b) ranges.emplace_back(b, e);
    }
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 1; i < ranges.size(); i++)
      if (ranges[i].first < ranges[i - 1].second) bad(path, "tensor data ranges overlap");
  } catch (...) {
    ::munmap(map_, size_);
    map_ = nullptr;
    throw;
  }
}

SafetensorsFile::~SafetensorsFile() {
  if (map_) ::munmap(map_, size_);
}

WeightStore::WeightStore(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (auto& p : paths) {
    if (p.size() > 5 && p.compare(p.size() - 5, 5, ".json") == 0) {
      std::ifstream in(p, std::ios::binary);
      if (!in) bad(p, "cannot open the shard index");
      std::stringstream ss;
      ss << in.rdbuf();
      std::string text = ss.str();
      Json idx;
      try {
        idx = parse_json(text.data(), text.size());
      } catch (const std::runtime_error& e) {
        bad(p, std::string("shard index is not valid JSON (") + e.what() + ")");
      }
      const Json* wm = idx.get("weight_map");
      if (!wm || wm->kind != Json::Object) bad(p, "shard index has no weight_map object");
      for (auto& kv : wm->object) {
        if (kv.second.kind != Json::String || kv.second.string.find('/') != std::string::npos ||
            kv.second.string.empty())
          bad(p, "weight_map entry '" + kv.first + "' must name a file in the same folder");
        std::string f = dirname_of(p) + "/" + kv.second.string;
        if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
      }
    } else {
      files.push_back(p);
    }
  }
  for (auto& f : files) {
    files_.push_back(std::make_unique<SafetensorsFile>(f));
    auto* sf = files_.back().get();
    for (auto& kv : sf->tensors()) {
      if (all_.count(kv.first)) bad(f, "tensor '" + kv.first + "' also appears in " + all_[kv.first].first->path());
      all_[kv.first] = {sf, kv.second};
    }
  }
}

const TensorView* WeightStore::find(const std::string& name) const {
  auto it = all_.find(name);
  return it == all_.end() ? nullptr : &it->second.second;
}

const TensorView& WeightStore::require(const std::string& name, const std::vector<int64_t>& shape) const {
  auto it = all_.find(name);
  if (it == all_.end())
    throw DecoderError("BAD_WEIGHTS", "weights: tensor '" + name + "' is missing (or has an unsupported dtype)");
  if (it->second.second.shape != shape)
    throw DecoderError("BAD_WEIGHTS", it->second.first->path() + ": tensor '" + name + "' has shape " +
                                          shape_str(it->second.second.shape) + ", expected " + shape_str(shape) +
                                          " from the config");
  return it->second.second;
}

size_t WeightStore::mapped_bytes() const {
  size_t n = 0;
  for (auto& f : files_) n += f->size();
  return n;
}

std::vector<std::string> WeightStore::names() const {
  std::vector<std::string> out;
  for (auto& kv : all_) out.push_back(kv.first);
  return out;
}

}  // namespace ocr
