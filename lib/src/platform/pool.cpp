#include "pool.hpp"

#include <pthread.h>

#include <algorithm>
#include <chrono>
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

}  // namespace

Pool::Placement::Placement(const Pool& pool) {
  if (pool.cpus_.empty() || pthread_getaffinity_np(pthread_self(), sizeof before_, &before_) != 0) return;
  moved_ = pin_this_thread(pool.cpus_.front());
}

Pool::Placement::~Placement() {
  if (moved_) pthread_setaffinity_np(pthread_self(), sizeof before_, &before_);
}

Pool::Pool(int threads) : size_(std::max(1, threads)) {
  // One thread alone, or more threads than CPUs: the scheduler's to place.
  if (auto cpus = allowed_cpus(); size_ > 1 && cpus.size() >= static_cast<std::size_t>(size_)) {
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
  if (!cpus_.empty()) pin_this_thread(cpus_[static_cast<std::size_t>(id)]);
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
