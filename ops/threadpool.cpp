// Thread pool implementation: workers spin briefly on a generation counter (decode issues hundreds of
// small jobs per token), then sleep on a condition variable.
#include "threadpool.h"

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define OCR_PAUSE() _mm_pause()
#else
#define OCR_PAUSE() ((void)0)
#endif

namespace ocr {

ThreadPool::ThreadPool(int threads) : n_threads_(std::max(1, threads)) {
  for (int i = 1; i < n_threads_; i++) workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lk(m_);
    stop_ = true;
    generation_.fetch_add(1);
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::run_part(int part) {
  if (part >= job_parts_) return;
  int64_t blocks = (job_n_ + job_grain_ - 1) / job_grain_;
  int64_t b0 = blocks * part / job_parts_, b1 = blocks * (part + 1) / job_parts_;
  int64_t begin = std::min(job_n_, b0 * job_grain_), end = std::min(job_n_, b1 * job_grain_);
  if (begin < end) (*job_)(begin, end);
}

void ThreadPool::worker(int index) {
  uint64_t seen = 0;
  while (true) {
    uint64_t g;
    int spins = 0;
    while ((g = generation_.load(std::memory_order_acquire)) == seen && spins < 4000) {
      OCR_PAUSE();
      spins++;
    }
    if (g == seen) {
      std::unique_lock<std::mutex> lk(m_);
      cv_.wait(lk, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      g = generation_.load(std::memory_order_acquire);
    }
    seen = g;
    if (stop_) return;
    run_part(index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lk(m_);
      done_cv_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  int64_t blocks = (n + grain - 1) / grain;
  if (n_threads_ == 1 || blocks == 1) {
    fn(0, n);
    return;
  }
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  job_ = &fn;
  job_n_ = n;
  job_grain_ = grain;
  job_parts_ = static_cast<int>(std::min<int64_t>(n_threads_, blocks));
  pending_.store(n_threads_ - 1, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lk(m_);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  cv_.notify_all();
  run_part(0);
  // Spin briefly (the usual case: workers finish within microseconds), then sleep so an
  // oversubscribed machine is not burnt waiting for a descheduled worker.
  for (int spins = 0; pending_.load(std::memory_order_acquire) != 0 && spins < 4000; spins++) OCR_PAUSE();
  if (pending_.load(std::memory_order_acquire) != 0) {
    std::unique_lock<std::mutex> lk(m_);
    done_cv_.wait(lk, [&] { return pending_.load(std::memory_order_acquire) == 0; });
  }
  job_ = nullptr;
}

}  // namespace ocr
