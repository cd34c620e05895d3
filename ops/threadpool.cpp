// Thread pool implementation: workers spin briefly on a generation counter (decode issues hundreds of
// small jobs per token), then sleep on a condition variable. A parallel_for job waits for every worker;
// a parallel_items job only for the workers that joined it before it closed.
#include "threadpool.h"

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define OCR_PAUSE() _mm_pause()
#else
#define OCR_PAUSE() ((void)0)
#endif

namespace ocr {

ThreadPool::ThreadPool(int threads)
    : n_threads_(std::max(1, threads)), ranges_(new std::atomic<uint64_t>[std::max(1, threads)]) {
  for (int i = 0; i < n_threads_; i++) ranges_[i].store(0);
  for (int i = 1; i < n_threads_; i++) workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lk(m_);
    stop_ = true;
    generation_.fetch_add(2);
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
    if (g & 1) {
      // An items job: join it only while it is open (the caller may have finished it, and even started another,
      // since this worker woke up; it then joins whichever job is open, or none). The caller closes the job and
      // then waits for active_ to reach 0; both sides use sequentially consistent operations, so either the
      // caller sees this worker counted or this worker sees the job closed.
      active_.fetch_add(1, std::memory_order_seq_cst);
      if (open_.load(std::memory_order_seq_cst)) run_items(index);
      if (active_.fetch_sub(1, std::memory_order_seq_cst) == 1) {
        std::lock_guard<std::mutex> lk(m_);
        done_cv_.notify_one();
      }
      continue;
    }
    run_part(index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lk(m_);
      done_cv_.notify_one();
    }
  }
}

int64_t ThreadPool::claim(int range, bool front) {
  std::atomic<uint64_t>& r = ranges_[range];
  uint64_t v = r.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t f = v >> 32, b = v & 0xffffffffu;
    if (f >= b) return -1;
    const uint64_t next = front ? ((f + 1) << 32 | b) : (f << 32 | (b - 1));
    if (r.compare_exchange_weak(v, next, std::memory_order_relaxed)) return static_cast<int64_t>(front ? f : b - 1);
  }
}

void ThreadPool::run_items(int self) {
  for (int64_t i; (i = claim(self, true)) >= 0;) (*items_fn_)(i);
  for (int d = 1; d < n_threads_; d++)
    for (int64_t i; (i = claim((self + d) % n_threads_, false)) >= 0;) (*items_fn_)(i);
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
    generation_.store((generation_.load(std::memory_order_relaxed) | 1) + 1,
                      std::memory_order_release);  // next even value
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

void ThreadPool::parallel_items(int64_t n, const std::function<void(int64_t)>& fn) {
  if (n <= 0) return;
  if (n_threads_ == 1 || n == 1) {
    for (int64_t i = 0; i < n; i++) fn(i);
    return;
  }
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  items_fn_ = &fn;
  for (int t = 0; t < n_threads_; t++) {
    const uint64_t f = static_cast<uint64_t>(n * t / n_threads_), b = static_cast<uint64_t>(n * (t + 1) / n_threads_);
    ranges_[t].store(f << 32 | b, std::memory_order_relaxed);
  }
  open_.store(true, std::memory_order_seq_cst);  // publishes the job (a worker reads it only after seeing open_)
  {
    std::lock_guard<std::mutex> lk(m_);
    generation_.store((generation_.load(std::memory_order_relaxed) + 1) | 1,
                      std::memory_order_release);  // next odd value
  }
  cv_.notify_all();
  active_.fetch_add(
      1, std::memory_order_seq_cst);  // the caller counts too: a worker leaving while it still works does not notify
  run_items(0);
  open_.store(false, std::memory_order_seq_cst);
  active_.fetch_sub(1, std::memory_order_seq_cst);
  for (int spins = 0; active_.load(std::memory_order_seq_cst) != 0 && spins < 4000; spins++) OCR_PAUSE();
  if (active_.load(std::memory_order_seq_cst) != 0) {
    std::unique_lock<std::mutex> lk(m_);
    done_cv_.wait(lk, [&] { return active_.load(std::memory_order_seq_cst) == 0; });
  }
  items_fn_ = nullptr;
}

}  // namespace ocr
