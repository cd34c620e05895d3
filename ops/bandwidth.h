// Measures this machine's streaming-read memory bandwidth (the bound for matrix-vector decode).
#pragma once
#include <cstddef>

#include "cpu/kernels.h"
#include "threadpool.h"

namespace ocr {

// Reads a `bytes` buffer (much larger than the caches) `repeats` times with all pool threads;
// returns the best observed GB/s (1e9 bytes per second).
double measure_read_bandwidth(const Kernels& k, ThreadPool& pool, size_t bytes, int repeats);

}  // namespace ocr
