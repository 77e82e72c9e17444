#include "pool.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "scatter/cancel.hpp"

namespace scatter::detail::cpu {

Pool::Pool(int threads) : size_(std::max(1, threads)) {
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
