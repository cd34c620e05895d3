// A fixed thread pool with static partitioning: each output element is computed by exactly one thread
// in a fixed order, so results are bitwise identical for every thread count.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ocr {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);  // threads >= 1 (the caller counts as one)
  ~ThreadPool();
  int size() const { return n_threads_; }
  // Calls fn(begin, end) on disjoint chunks of [0, n) covering it; chunks are multiples of `grain`.
  // Calls from several sessions are serialised (one forward pass uses all threads).
  void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void worker(int index);
  int n_threads_;
  std::vector<std::thread> workers_;
  std::mutex run_mutex_;  // serialises parallel_for callers
  std::mutex m_;
  std::condition_variable cv_;       // workers sleep here between jobs
  std::condition_variable done_cv_;  // the caller sleeps here when workers were descheduled
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  bool stop_ = false;
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t job_n_ = 0, job_grain_ = 1;
  int job_parts_ = 0;
  void run_part(int part);
};

}  // namespace ocr
