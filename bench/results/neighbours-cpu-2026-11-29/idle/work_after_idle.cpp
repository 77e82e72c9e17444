// After the process sat idle for a while, how long a fixed piece of work takes on the thread
// that was woken (the other vCPU) and on the main thread that woke it: arithmetic (work) and a
// read of 8 MB, twice (touch, the one timed). Build: g++ -O2 -std=c++20 -pthread
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

using Clock = std::chrono::steady_clock;

static std::vector<char> buffer_a(8 << 20, 1), buffer_b(8 << 20, 1);
double touch(std::vector<char>& b) {  // a read of every 4 KB page of 8 MB, twice
  const auto t0 = Clock::now();
  volatile long s = 0;
  for (int r = 0; r < 2; ++r)
    for (std::size_t i = 0; i < b.size(); i += 64) s = s + b[i];
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}
double work() {
  const auto t0 = Clock::now();
  volatile double x = 1.0;
  for (int i = 0; i < 400000; ++i) x = x * 1.0000001 + 1e-9;
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

int main() {
  std::mutex m;
  std::condition_variable cv;
  bool go = false, quit = false;
  double theirs = 0;
  std::thread t([&] {
    std::unique_lock lock(m);
    for (;;) {
      cv.wait(lock, [&] { return go || quit; });
      if (quit) return;
      lock.unlock();
      const double w = touch(buffer_b);
      lock.lock();
      theirs = w;
      go = false;
    }
  });
  for (int idle_ms : {0, 5, 20, 50, 100, 200}) {
    std::vector<double> mine_us, their_us;
    for (int k = 0; k < 25; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms));
      { std::lock_guard lock(m); go = true; }
      cv.notify_one();
      mine_us.push_back(touch(buffer_a));
      for (;;) {
        std::lock_guard lock(m);
        if (!go) break;
      }
      their_us.push_back(theirs);
    }
    std::sort(mine_us.begin(), mine_us.end());
    std::sort(their_us.begin(), their_us.end());
    std::printf("idle %3d ms: main thread %7.1f us, woken thread %7.1f us (medians)\n", idle_ms,
                mine_us[mine_us.size() / 2], their_us[their_us.size() / 2]);
  }
  { std::lock_guard lock(m); quit = true; }
  cv.notify_one();
  t.join();
}
