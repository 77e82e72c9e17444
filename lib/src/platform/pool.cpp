#include "pool.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <utility>

#include "scatter/cancel.hpp"

namespace scatter::detail::cpu {
namespace {

// The CPUs this thread may run on, in order: the process's, as taskset or a cpuset gave them.
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return {};
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// A failure leaves the thread where the scheduler puts it: slower, never wrong.
bool pin_this_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

// Back to every CPU the process may use.
void unpin_this_thread(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int cpu : cpus) CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// The tasks of this machine that can run now, the caller included (/proc/loadavg's fourth field,
// "RUNNING/TOTAL"), or 0 where it cannot be read.
int runnable_tasks() {
  const int fd = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[128];
  const auto got = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (got <= 0) return 0;
  text[got] = '\0';
  double l1 = 0, l5 = 0, l15 = 0;
  int running = 0;
  return std::sscanf(text, "%lf %lf %lf %d/", &l1, &l5, &l15, &running) == 4 ? running : 0;
}

}  // namespace

bool Pool::crowded() const {
  using Clock = std::chrono::steady_clock;
  const auto now = Clock::now().time_since_epoch().count();
  if (now - crowded_at_.load(std::memory_order_relaxed) > std::chrono::nanoseconds(kCrowdedEvery).count()) {
    crowded_at_.store(now, std::memory_order_relaxed);
    // The caller is running: the others, with this pool's other threads, need more CPUs than it has.
    const int others = std::max(0, runnable_tasks() - 1);
    crowded_.store(others > 0 && others + size_ > static_cast<int>(all_cpus_.size()), std::memory_order_relaxed);
  }
  return crowded_.load(std::memory_order_relaxed);
}

Pool::Placement::Placement(const Pool& pool, bool crowded) {
  if (pool.cpus_.empty()) return;
  pool.pinned_.store(!crowded, std::memory_order_relaxed);
  if (crowded) return;
  if (pthread_getaffinity_np(pthread_self(), sizeof before_, &before_) != 0) return;
  moved_ = pin_this_thread(pool.cpus_.front());
}

Pool::Placement::~Placement() {
  if (moved_) pthread_setaffinity_np(pthread_self(), sizeof before_, &before_);
}

Pool::Pool(int threads) : size_(std::max(1, threads)) {
  // One thread alone, or more threads than CPUs: the scheduler's to place.
  if (auto cpus = allowed_cpus(); size_ > 1 && cpus.size() >= static_cast<std::size_t>(size_)) {
    all_cpus_ = cpus;
    cpus.resize(static_cast<std::size_t>(size_));
    cpus_ = std::move(cpus);
  }
  workers_.reserve(static_cast<std::size_t>(size_ - 1));
  try {
    for (int id = 1; id < size_; ++id) workers_.emplace_back([this, id] { work(id); });
  } catch (...) {
    size_ = static_cast<int>(workers_.size()) + 1;  // fewer threads than asked: run with those
  }
}

Pool::~Pool() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  start_.notify_all();
  for (auto& t : workers_) t.join();
}

void Pool::fail(std::exception_ptr error) {
  if (!error_) error_ = std::move(error);
  stop_.store(true, std::memory_order_relaxed);
}

void Pool::work(int id) {
  bool pinned = !cpus_.empty() && pin_this_thread(cpus_[static_cast<std::size_t>(id)]);
  std::uint64_t seen = 0;
  for (;;) {
    void* task = nullptr;
    Call call = nullptr;
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return quit_ || generation_ != seen; });
      if (quit_) return;
      seen = generation_;
      if (id >= tasks_) continue;
      task = task_;
      call = call_;
    }
    // The run's placement (Placement): a system call only when it changes.
    if (const bool want = pinned_.load(std::memory_order_relaxed); !cpus_.empty() && want != pinned) {
      if (want) {
        pin_this_thread(cpus_[static_cast<std::size_t>(id)]);
      } else {
        unpin_this_thread(all_cpus_);
      }
      pinned = want;
    }
    std::exception_ptr error;
    try {
      call(task, id);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    if (error) fail(std::move(error));
    if (--pending_ == 0) done_.notify_all();
  }
}

void Pool::run_erased(int n, void* task, Call call) {
  const std::lock_guard turn(turn_);
  n = std::clamp(n, 1, size_);
  stop_.store(false, std::memory_order_relaxed);
  if (n == 1) {
    call(task, 0);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    task_ = task;
    call_ = call;
    tasks_ = n;
    pending_ = n - 1;
    error_ = nullptr;
    ++generation_;
  }
  start_.notify_all();
  std::exception_ptr mine;
  try {
    call(task, 0);
  } catch (...) {
    mine = std::current_exception();
  }
  std::unique_lock lock(mutex_);
  if (mine) fail(std::move(mine));
  while (pending_ > 0) {
    if (done_.wait_for(lock, std::chrono::milliseconds(20), [&] { return pending_ == 0; })) break;
    if (stop_.load(std::memory_order_relaxed)) continue;
    lock.unlock();
    std::exception_ptr cancelled;
    try {
      poll_cancel();
    } catch (...) {
      cancelled = std::current_exception();
    }
    lock.lock();
    if (cancelled) fail(std::move(cancelled));
  }
  task_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace scatter::detail::cpu
