// A fixed thread pool. Every result is computed by exactly one thread in a fixed order, so results are
// bitwise identical for every thread count: parallel_for partitions statically, parallel_items hands out
// whole items (which thread runs an item never changes what it computes).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
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
  // Calls fn(i) once for every i in [0, n) (n < 2^31). Thread t takes the items of its share
  // [n*t/T, n*(t+1)/T) front to back (contiguous items stay on one thread), then items from the back of the
  // other shares. The caller never waits for a worker that has not started: on a shared machine a descheduled
  // or sleeping worker costs at most the item it is running, not its whole share.
  void parallel_items(int64_t n, const std::function<void(int64_t)>& fn);

 private:
  void worker(int index);
  void run_items(int self);
  int64_t claim(int range, bool front);
  int n_threads_;
  std::vector<std::thread> workers_;
  std::mutex run_mutex_;  // serialises callers of parallel_for and parallel_items
  std::mutex m_;
  std::condition_variable cv_;           // workers sleep here between jobs
  std::condition_variable done_cv_;      // the caller sleeps here when workers were descheduled
  std::atomic<uint64_t> generation_{0};  // 2 * job count + (1 for a parallel_items job)
  std::atomic<int> pending_{0};
  bool stop_ = false;
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t job_n_ = 0, job_grain_ = 1;
  int job_parts_ = 0;
  void run_part(int part);
  // parallel_items: per thread share (front << 32 | back), the threads inside the job, and whether it still hands out
  // items.
  std::unique_ptr<std::atomic<uint64_t>[]> ranges_;
  const std::function<void(int64_t)>* items_fn_ = nullptr;
  std::atomic<int> active_{0};
  std::atomic<bool> open_{false};
};

}  // namespace ocr
