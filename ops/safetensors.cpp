// Parses and validates safetensors headers and maps the data read-only (no conversion of the file).
#include "safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
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

constexpr size_t kHugePage = size_t{2} << 20;

// The first 2 MB boundary at or after p.
uint8_t* huge_aligned(void* p) {
  return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1));
}
#if defined(__linux__)
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#else  // elsewhere the advice is not given and Auto maps (an anonymous copy cannot be asked for huge pages either)
#define MADV_HUGEPAGE -1
#define MADV_POPULATE_READ -1
#define POSIX_FADV_DONTNEED 0
#define posix_fadvise(fd, off, len, advice) 0
#endif

// The kernel gives anonymous memory huge pages ("always" or "madvise" in its THP setting).
bool anon_huge_pages() {
#if !defined(__linux__)
  return false;
#endif
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(f, line);
  return line.find("[always]") != std::string::npos || line.find("[madvise]") != std::string::npos;
}

// Bytes in huge pages (FilePmdMapped + AnonHugePages) of the mappings meeting [begin, begin + len), from
// /proc/self/smaps; 0 where it cannot be read.
size_t smaps_huge_bytes(const void* begin, size_t len) {
  std::ifstream f("/proc/self/smaps");
  if (!f) return 0;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(begin), hi = lo + len;
  std::string line;
  bool inside = false;
  size_t kb = 0;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    const size_t dash = line.find('-');
    const size_t colon = line.find(':');
    if (dash != std::string::npos && (colon == std::string::npos || dash < colon) &&
        std::isxdigit(static_cast<unsigned char>(line[0]))) {
      const uintptr_t a = std::strtoull(line.c_str(), nullptr, 16);
      const uintptr_t b = std::strtoull(line.c_str() + dash + 1, nullptr, 16);
      inside = a < hi && b > lo;  // (an anonymous copy's mapping runs past the bytes: the reservation's slack)
      continue;
    }
    if (!inside) continue;
    if (line.rfind("FilePmdMapped:", 0) == 0 || line.rfind("AnonHugePages:", 0) == 0)
      kb += std::strtoull(line.c_str() + colon + 1, nullptr, 10);
  }
  return kb * 1024;
}

}  // namespace

SafetensorsFile::SafetensorsFile(const std::string& path, WeightPages pages) : path_(path) {
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
  // A reservation one huge page longer than the file, the file mapped at its first 2 MB boundary.
  reserved_ = size_ + kHugePage;
  reserve_ = ::mmap(nullptr, reserved_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserve_ == MAP_FAILED) {
    reserve_ = nullptr;
    ::close(fd);
    bad(path, std::string("cannot reserve address space: ") + std::strerror(errno));
  }
  map_ = ::mmap(huge_aligned(reserve_), size_, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    const int err = errno;
    ::close(fd);
    release();
    bad(path, std::string("mmap failed: ") + std::strerror(err));
  }
  ::madvise(map_, size_, MADV_HUGEPAGE);  // advice: where the kernel cannot, the mapping keeps 4 KB pages
  if (pages == WeightPages::Copy ||
      (pages == WeightPages::Auto && size_ >= kHugeCheckBytes && anon_huge_pages() && mapped_huge_share() < 0.5))
    copy_out(fd);
  ::close(fd);
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
    release();
    throw;
  }
}

// The file's bytes read into anonymous memory advised for huge pages (2 MB-aligned), read-only like the mapping,
// which goes. The page cache behind each chunk read is released (pages other processes map stay), so a later load
// reads the file afresh, in the huge folios the advised mapping asks for, and maps it.
void SafetensorsFile::copy_out(int fd) {
  const size_t reserved = size_ + kHugePage;
  void* fresh = ::mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (fresh == MAP_FAILED) return;  // no room: the mapping serves
  uint8_t* at = huge_aligned(fresh);
  ::madvise(at, size_, MADV_HUGEPAGE);
  constexpr size_t kChunk = size_t{64} << 20;
  for (size_t off = 0; off < size_;) {
    const ssize_t got = ::pread(fd, at + off, std::min(kChunk, size_ - off), static_cast<off_t>(off));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {  // a read error: the mapping serves (it reports the error, if any, where it is read)
      ::munmap(fresh, reserved);
      return;
    }
    ::posix_fadvise(fd, static_cast<off_t>(off), got, POSIX_FADV_DONTNEED);
    off += static_cast<size_t>(got);
  }
  ::mprotect(fresh, reserved, PROT_READ);
  ::munmap(reserve_, reserved_);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // the sample the check mapped
  reserve_ = fresh;
  reserved_ = reserved;
  map_ = at;
  copied_ = true;
}

// Auto's check: eight 8 MB windows spread over the file read in (a cold cache reads them in huge folios, as the
// mapping is advised for them), and the share of them the mapping then holds in huge pages (nothing else of it is
// mapped yet); 1 where the kernel cannot populate on advice (before Linux 5.14).
double SafetensorsFile::mapped_huge_share() const {
  constexpr int kWindows = 8;
  constexpr size_t kWindow = size_t{8} << 20;
  size_t read = 0;
  for (int i = 0; i < kWindows; i++) {
    const size_t at = size_ / (2 * kWindows) * (2 * i + 1) & ~(kHugePage - 1);
    const size_t len = std::min(kWindow, size_ - at);
    if (::madvise(static_cast<uint8_t*>(map_) + at, len, MADV_POPULATE_READ) != 0) return 1.0;
    read += len;
  }
  return static_cast<double>(smaps_huge_bytes(map_, size_)) / static_cast<double>(read);
}

void SafetensorsFile::release() {
  if (reserve_) ::munmap(reserve_, reserved_);
  reserve_ = nullptr;
  map_ = nullptr;
}

size_t SafetensorsFile::huge_bytes() const { return map_ ? smaps_huge_bytes(map_, size_) : 0; }

SafetensorsFile::~SafetensorsFile() { release(); }

WeightStore::WeightStore(const std::vector<std::string>& paths, WeightPages pages) {
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
    files_.push_back(std::make_unique<SafetensorsFile>(f, pages));
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

size_t WeightStore::huge_bytes() const {
  size_t n = 0;
  for (auto& f : files_) n += f->huge_bytes();
  return n;
}

size_t WeightStore::copied_bytes() const {
  size_t n = 0;
  for (auto& f : files_) n += f->copied() ? f->size() : 0;
  return n;
}

std::vector<std::string> WeightStore::names() const {
  std::vector<std::string> out;
  for (auto& kv : all_) out.push_back(kv.first);
  return out;
}

}  // namespace ocr
