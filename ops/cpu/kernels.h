// The CPU backend's kernel table: the inner loops of the ops (../linear.h, ../attention.h, ...) for one ISA. Every
// kernel has a plain reference (kernels_ref.cpp) and SIMD versions (AVX2+FMA+F16C, AVX-512F/BW/VL(+BF16), bodies in
// simd/ by op) chosen at run time; tests compare each against the reference.
#pragma once
#include <cstdint>

#include "../common.h"

namespace ocr {

struct Kernels {
  const char* name;
  // y[t*ldy + (o - o0)] = sum_k x[t*ldx + k] * W[o][k]  for t in [0, n), o in [o0, o1).
  // W is [rows, in] row-major in f32/f16/bf16, or in q8_0 / q4_1 blocks of 32 (common.h; `in` a multiple of 32: the
  // decode path sums q.x per block and scales it, the others dequantise in registers); accumulation in f32 in one
  // fixed order per element that does not depend on o0/o1 (so thread partitioning never changes a result). SIMD sets
  // use a different order for n == 1 (row-streaming matrix-vector), 2 <= n < 32 (register blocks) and n >= 32
  // (packed panels).
  void (*linear_rows)(const float* x, int64_t ldx, int64_t n, int64_t in, DType wdt, const void* w, int64_t o0,
                      int64_t o1, float* y, int64_t ldy);
  // sum_k row[k] * x[k], row in dt.
  float (*dot)(DType dt, const void* row, const float* x, int64_t len);
  // y[k] += a * row[k].
  void (*axpy)(DType dt, float a, const void* row, float* y, int64_t len);
  // row[k] = convert(x[k]) (round to nearest even for 16-bit types).
  void (*store)(DType dt, const float* x, void* row, int64_t len);
  // Attention inner loops over a slot list (the row of slot s starts at base + s * stride bytes):
  // out[j] = scale * sum_k row(slots[j])[k] * q[k]   and   out[k] += sum_j p[j] * row(slots[j])[k].
  void (*scores)(DType dt, const uint8_t* base, int64_t stride, const int32_t* slots, int32_t n, const float* q,
                 int64_t d, float scale, float* out);
  void (*weighted_sum)(DType dt, const uint8_t* base, int64_t stride, const int32_t* slots, int32_t n, const float* p,
                       int64_t d, float* out);
  // x[j] <- exp(x[j] - max) / sum (SIMD sets use a polynomial exp, ~1 ulp).
  void (*softmax)(float* x, int32_t n);
  // h[i] = silu(g[i]) * u[i] = g[i] / (1 + exp(-g[i])) * u[i] (SIMD sets: the polynomial exp); h may alias g.
  void (*silu_mul)(const float* g, const float* u, float* h, int64_t len);
  // Blocked (flash-style) attention of `rows` query rows against one key/value head, for prefill.
  // q, out: [rows, d] f32, contiguous. Row r attends the keys slots[0 .. vis[r]) (K rows at kbase + slot * stride,
  // V rows at vbase + slot * stride, in dt): out[r] = softmax(scale * q[r].k) v, zeros when vis[r] == 0.
  // Keys go by in tiles of kAttentionKeyTile, each loaded once for all rows; every row keeps a running max and
  // sum in f32 (online softmax) and its output is rescaled when the max grows. Callers split work by whole
  // calls with fixed row sets, so the thread count never changes a result.
  void (*attention_tile)(DType dt, const uint8_t* kbase, const uint8_t* vbase, int64_t stride, const int32_t* slots,
                         const float* q, int32_t rows, const int32_t* vis, int64_t d, float scale, float* out);
};

// Prefill's packed panels: from kPackedMinTokens tokens on, linear_rows packs weight rows into panels of 2W rows
// (16 for AVX2, 32 for AVX-512); callers that split rows between threads keep kPackedRowBlock-row blocks whole.
constexpr int64_t kPackedMinTokens = 32;  // below this, packing costs more than it saves
constexpr int64_t kPackedRowBlock = 32;   // a multiple of every set's panel width

// Keys per tile of `attention_tile` (a multiple of every set's panel width: 16 for AVX2, 32 for AVX-512).
constexpr int32_t kAttentionKeyTile = 64;

const Kernels& kernels_ref();
// The reference f32 -> dtype conversion, shared by every set (kept out of the hot path).
void store_ref(DType dt, const float* x, void* row, int64_t len);
// Entry of the avx512bf16 set (kernels_avx512bf16.cpp, compiled with -mavx512bf16).
void linear_rows_dpbf16(const float* x, int64_t ldx, int64_t n, int64_t in, DType wdt, const void* w, int64_t o0,
                        int64_t o1, float* y, int64_t ldy);
// Decode (n = 1) on q8_0 / q4_1 weights with the activations rounded to int8 blocks and integer dot products:
// kernels_int8.cpp (256-bit, AVX-VNNI) is what the AVX2 set's linear_rows runs for n = 1 on quantised weights while
// int8_decode_avxvnni(); kernels_int8_avx512.cpp (512-bit, AVX512-VNNI) what the AVX-512 sets run while
// int8_decode_avx512vnni(), else the 256-bit one where the CPU has AVX-VNNI. Both round the activations the same
// way; set_int8_decode(false) turns both off (tests compare both paths).
void matvec_q_int8(DType wdt, const float* x, int64_t in, const void* w, int64_t o0, int64_t o1, float* y);
void matvec_q_int8_avx512(DType wdt, const float* x, int64_t in, const void* w, int64_t o0, int64_t o1, float* y);
bool int8_decode_avxvnni();     // the CPU has AVX-VNNI and the int8 path is on
bool int8_decode_avx512vnni();  // the CPU has AVX512-VNNI and the int8 path is on
// The 512-bit path's q4_1 loop with AVX512-VBMI byte permutes (a quad's blocks in two loads, no gather): the CPU has
// AVX512-VNNI and AVX512-VBMI and it is not turned off (tests run both loops where the CPU has VBMI).
bool int8_q4_vbmi();
void set_int8_q4_vbmi(bool on);
// Whether kernel set `set` (a Kernels::name) runs the int8 path on this CPU now; nullptr: any set.
bool int8_decode_enabled(const char* set = nullptr);
void set_int8_decode(bool on);    // off: the f32 path (dequantise, FMA) on every CPU
const Kernels* kernels_avx2();    // nullptr when not compiled in
const Kernels* kernels_avx512();  // nullptr when not compiled in
// Opt-in only (never chosen automatically): bf16 x bf16 dot products round the activations to bf16.
const Kernels* kernels_avx512bf16();

// The fastest exact set this CPU supports; `force` ("ref", "avx2", "avx512", "avx512bf16") overrides.
const Kernels& kernels_select(const char* force = nullptr);
// Names of the kernel sets usable on this CPU, fastest first.
const char* cpu_features_string();
bool cpu_supports(const char* isa);

}  // namespace ocr
