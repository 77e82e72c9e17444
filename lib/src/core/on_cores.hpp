#pragma once
// Work in parts, on a thread per core: for the judge's passes over a large case's GBs
// (fingerprints, comparisons), which take one core seconds where the machine has 16. The layers
// below the backends have no pool (platform/pool.hpp is the cpu backend's), and these passes run
// a few times a benchmark, so threads are started for each and joined.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace scatter::detail {

/// Calls work(part) once for every part in [0, parts), in any order, on up to one thread per
/// core and this one; returns when all have returned. The first exception a part threw is
/// rethrown then (the parts not yet started are skipped). Where no thread can be started, this
/// thread does every part.
template <class Work>
void for_each_part_on_cores(std::size_t parts, Work&& work) {
  const std::size_t workers = std::min<std::size_t>(parts, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  const auto take_parts = [&] {
    for (std::size_t part; (part = next.fetch_add(1)) < parts;) {
      try {
        work(part);
      } catch (...) {
        const std::lock_guard lock(failure_lock);
        if (!failure) failure = std::current_exception();
        next.store(parts);
      }
    }
  };
  std::vector<std::thread> threads;
  try {
    threads.reserve(workers);
    for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(take_parts);
  } catch (const std::system_error&) {
    // Fewer threads than cores: the parts the started ones leave, here.
  }
  take_parts();
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace scatter::detail
