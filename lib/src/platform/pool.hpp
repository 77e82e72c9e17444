#pragma once
// A fork-join pool for the cpu backend: run(n, task) runs task(0) .. task(n - 1), task 0
// on the calling thread, and returns when all have returned. While the caller waits it
// polls for --timeout and Ctrl-C (poll_cancel: the deadline is per thread, and the caller
// owns it). A cancel or a task's exception sets stop(), which the tasks poll, and is
// rethrown once every task has returned: no task outlives the buffers it writes.
//
// Each thread has a CPU of its own where the process may use as many: the workers are pinned
// for their lives, and the caller while it holds a Pool::Placement. Left to the scheduler, a
// worker woken by a caller that has just waited on another process was put on the caller's
// CPU (Linux 6.18 on a 2-vCPU VM), and the two tasks ran one after the other.

#include <sched.h>

#include <atomic>
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

  /// The calling thread on task 0's CPU while it lives (where the pool is pinned), its own
  /// CPUs given back after: made before a timed region, so that its migration is not timed.
  class Placement {
   public:
    explicit Placement(const Pool& pool);
    ~Placement();
    Placement(const Placement&) = delete;
    Placement& operator=(const Placement&) = delete;

   private:
    bool moved_ = false;
    cpu_set_t before_{};
  };

  /// Set when the current run is cancelled or a task failed: tasks return early.
  bool stopping() const { return stop_.load(std::memory_order_relaxed); }
  /// Runs task(t) for t in [0, min(n, size())); rethrows the first failure. The task is
  /// called through a pointer, never copied (no allocation).
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
  std::vector<int> cpus_;  // thread t's CPU is cpus_[t]; empty when unpinned
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
