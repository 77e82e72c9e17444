// How long a thread blocked on a condition variable takes to start running after notify,
// as a function of how long the whole process sat idle before (a VM's idle vCPU).
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

using Clock = std::chrono::steady_clock;

int main() {
  std::mutex m;
  std::condition_variable cv;
  bool go = false, quit = false;
  Clock::time_point woke;
  std::thread t([&] {
    std::unique_lock lock(m);
    for (;;) {
      cv.wait(lock, [&] { return go || quit; });
      if (quit) return;
      woke = Clock::now();
      go = false;
    }
  });
  for (int idle_ms : {0, 1, 5, 20, 50, 100, 200}) {
    std::vector<double> us;
    for (int k = 0; k < 25; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms));
      Clock::time_point sent;
      {
        std::lock_guard lock(m);
        go = true;
        sent = Clock::now();
      }
      cv.notify_one();
      for (;;) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        std::lock_guard lock(m);
        if (!go) break;
      }
      us.push_back(std::chrono::duration<double, std::micro>(woke - sent).count());
    }
    std::sort(us.begin(), us.end());
    std::printf("idle %3d ms: wake-up median %7.1f us, p90 %7.1f us\n", idle_ms, us[us.size() / 2], us[us.size() * 9 / 10]);
  }
  { std::lock_guard lock(m); quit = true; }
  cv.notify_one();
  t.join();
}
