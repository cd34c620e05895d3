// Measures this machine's streaming-read memory bandwidth (the bound for matrix-vector decode). Bench addon only.
#pragma once
#include <cstddef>

#include "../../ops/threadpool.h"

namespace ocrbench {

// Reads a `bytes` buffer (much larger than the caches) `repeats` times with all pool threads, each summing its own
// contiguous share with the widest vector loads this CPU has (AVX-512, AVX2, else scalar); returns the best observed
// GB/s (1e9 bytes per second).
double measure_read_bandwidth(ocr::ThreadPool& pool, size_t bytes, int repeats);

}  // namespace ocrbench
