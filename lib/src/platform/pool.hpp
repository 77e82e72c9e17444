#pragma once
// A fork-join pool for the cpu backend: run(n, task) runs task(0) .. task(n - 1), task 0
// on the calling thread, and returns when all have returned. While the caller waits it
// polls for --timeout and Ctrl-C (poll_cancel: the deadline is per thread, and the caller
// owns it). A cancel or a task's exception sets stop(), which the tasks poll, and is
// rethrown once every task has returned: no task outlives the buffers it writes.
//
// Each thread has a CPU of its own where the process may use as many, on a machine no neighbour
// crowds: the workers pinned, and the caller while it holds a Pool::Placement. Left to the
// scheduler, a worker woken by a caller that has just waited on another process was put on the
// caller's CPU (Linux 6.18 on a 2-vCPU VM), and the two tasks ran one after the other. But beside
// a neighbour that keeps a CPU busy, a task pinned to that CPU shares it slice by slice, and an
// A/A gate of two builds could not decide (5 of 29 benchmarks "same" beside `yes`, 22 unpinned):
// while a neighbour runs (crowded()), nothing is pinned.

#include <sched.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <type_traits>
#include <mutex>
#include <thread>
#include <vector>

namespace scatter::detail::cpu {

class Pool {
 public:
  /// `threads` workers in all, the caller included (at least 1).
  explicit Pool(int threads);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  int size() const { return size_; }

  /// The calling thread on task 0's CPU while it lives (where the pool is pinned and the machine
  /// not `crowded`: crowded()), its own CPUs given back after; the workers pinned or not as the
  /// caller is. Made before a timed region, so that its migration is not timed.
  class Placement {
   public:
    Placement(const Pool& pool, bool crowded);
    ~Placement();
    Placement(const Placement&) = delete;
    Placement& operator=(const Placement&) = delete;

   private:
    bool moved_ = false;
    cpu_set_t before_{};
  };

  /// Whether other tasks that can run now, with this pool's threads, need more CPUs than the
  /// process may use: a neighbour takes some (/proc/loadavg, read at most every kCrowdedEvery).
  bool crowded() const;
  static constexpr std::chrono::milliseconds kCrowdedEvery{100};

  /// Set when the current run is cancelled or a task failed: tasks return early.
  bool stopping() const { return stop_.load(std::memory_order_relaxed); }
  /// Runs task(t) for t in [0, min(n, size())); rethrows the first failure. The task is
  /// called through a pointer, never copied (no allocation). Callers on several threads take
  /// turns; a task must not run this pool again.
  template <class Task>
  void run(int n, Task&& task) {
    using Plain = std::remove_reference_t<Task>;
    run_erased(n, const_cast<void*>(static_cast<const void*>(&task)),
               [](void* f, int t) { (*static_cast<Plain*>(f))(t); });
  }

 private:
  using Call = void (*)(void*, int);
  void run_erased(int n, void* task, Call call);
  void work(int id);
  void fail(std::exception_ptr error);  // with mutex_ held

  int size_;
  std::vector<int> cpus_;  // thread t's CPU is cpus_[t]; empty when never pinned
  std::vector<int> all_cpus_;  // every CPU the process may use (a worker unpinned goes back to them)
  mutable std::atomic<bool> pinned_{true};  // whether this run's threads keep to their CPUs (Placement)
  mutable std::atomic<std::int64_t> crowded_at_{std::numeric_limits<std::int64_t>::min() / 2};
  mutable std::atomic<bool> crowded_{false};
  std::mutex turn_;  // one run at a time: a caller on another thread waits its turn (two boxes flush side by side)
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  std::uint64_t generation_ = 0;
  int tasks_ = 0;    // tasks of the current run
  int pending_ = 0;  // worker tasks not yet returned
  void* task_ = nullptr;
  Call call_ = nullptr;
  std::exception_ptr error_;
  std::atomic<bool> stop_{false};
  bool quit_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace scatter::detail::cpu
