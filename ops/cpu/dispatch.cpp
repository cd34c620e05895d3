// Runtime choice of the kernel set from what this CPU reports (cpuid via __builtin_cpu_supports).
#include <atomic>
#include <cstring>
#include <string>

#include "kernels.h"

namespace ocr {

#ifndef OCR_HAVE_X86_SIMD
const Kernels* kernels_avx2() { return nullptr; }
const Kernels* kernels_avx512() { return nullptr; }
const Kernels* kernels_avx512bf16() { return nullptr; }
void matvec_q_int8(DType, const float*, int64_t, const void*, int64_t, int64_t, float*) {}
void matvec_q_int8_avx512(DType, const float*, int64_t, const void*, int64_t, int64_t, float*) {}
#endif

namespace {
std::atomic<bool> int8_decode_on{true};
std::atomic<bool> q4_vbmi_on{true};
}  // namespace

bool int8_decode_avxvnni() {
#ifdef OCR_HAVE_X86_SIMD
  static const bool vnni = cpu_supports("avxvnni");
  return vnni && int8_decode_on.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

bool int8_decode_avx512vnni() {
#ifdef OCR_HAVE_X86_SIMD
  static const bool vnni = cpu_supports("avx512vnni");
  return vnni && int8_decode_on.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

bool int8_q4_vbmi() {
#ifdef OCR_HAVE_X86_SIMD
  static const bool vbmi = cpu_supports("avx512vnni") && cpu_supports("avx512vbmi");
  return vbmi && q4_vbmi_on.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

void set_int8_q4_vbmi(bool on) { q4_vbmi_on.store(on); }

bool int8_decode_enabled(const char* set) {
  if (!set) return int8_decode_avxvnni() || int8_decode_avx512vnni();
  if (std::strcmp(set, "avx2") == 0) return int8_decode_avxvnni();
  if (std::strcmp(set, "avx512") == 0 || std::strcmp(set, "avx512bf16") == 0)
    return int8_decode_avx512vnni() || int8_decode_avxvnni();
  return false;
}

void set_int8_decode(bool on) { int8_decode_on.store(on); }

bool cpu_supports(const char* isa) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (std::strcmp(isa, "avx2") == 0)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  if (std::strcmp(isa, "avx512") == 0)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("f16c") && __builtin_cpu_supports("fma");
  if (std::strcmp(isa, "avx512bf16") == 0) return __builtin_cpu_supports("avx512bf16");
  if (std::strcmp(isa, "avx512vnni") == 0) return cpu_supports("avx512") && __builtin_cpu_supports("avx512vnni");
  if (std::strcmp(isa, "avx512vbmi") == 0) return cpu_supports("avx512") && __builtin_cpu_supports("avx512vbmi");
  if (std::strcmp(isa, "avxvnni") == 0)
    return __builtin_cpu_supports("avxvnni") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
#endif
  (void)isa;
  return false;
}

const char* cpu_features_string() {
  static std::string s = [] {
    std::string r = "ref";
    if (cpu_supports("avx2")) r = "avx2 " + r;
    if (cpu_supports("avx512")) r = "avx512 " + r;
    if (cpu_supports("avx512bf16")) r = "avx512bf16 " + r;
    return r;
  }();
  return s.c_str();
}

const Kernels& kernels_select(const char* force) {
  if (force && *force) {
    if (std::strcmp(force, "ref") == 0) return kernels_ref();
    if (std::strcmp(force, "avx2") == 0) {
      if (kernels_avx2() && cpu_supports("avx2")) return *kernels_avx2();
      throw DecoderError("BAD_OPTION", "kernel set 'avx2' is not supported by this CPU");
    }
    if (std::strcmp(force, "avx512") == 0) {
      if (kernels_avx512() && cpu_supports("avx512")) return *kernels_avx512();
      throw DecoderError("BAD_OPTION", "kernel set 'avx512' is not supported by this CPU");
    }
    if (std::strcmp(force, "avx512bf16") == 0) {
      if (kernels_avx512bf16() && cpu_supports("avx512") && cpu_supports("avx512bf16")) return *kernels_avx512bf16();
      throw DecoderError("BAD_OPTION", "kernel set 'avx512bf16' is not supported by this CPU");
    }
    throw DecoderError("BAD_OPTION",
                       std::string("unknown kernel set '") + force + "' (expected ref, avx2, avx512 or avx512bf16)");
  }
  if (kernels_avx512() && cpu_supports("avx512")) return *kernels_avx512();
  if (kernels_avx2() && cpu_supports("avx2")) return *kernels_avx2();
  return kernels_ref();
}

}  // namespace ocr
