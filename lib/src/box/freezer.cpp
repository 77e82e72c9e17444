// Freezing a box (freezer.hpp): a cgroup v2 freezer, or signals to its group and descendants.

#include "freezer.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>

namespace scatter::box {
namespace {

using Clock = std::chrono::steady_clock;

// A freeze that takes longer than this failed (a process stuck in the kernel): the box is killed.
constexpr auto kFreezeLimit = std::chrono::seconds(2);

// A small file of /proc or /sys read whole with read(2): a stream would throw for a process that
// ended between the open and the read.
std::string read_small(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buffer[4096];
  const ssize_t got = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  return got > 0 ? std::string(buffer, static_cast<std::size_t>(got)) : "";
}

// /proc/PID/stat's state and parent and process group ("PID (COMM) STATE PPID PGRP ..."; COMM may
// hold ')').
struct ProcStat {
  char state = 0;
  pid_t parent = -1;
  pid_t group = -1;
};
bool proc_stat(pid_t pid, ProcStat& out) {
  const auto stat = read_small(fmt::format("/proc/{}/stat", pid));
  const auto comm_end = stat.rfind(')');
  if (comm_end == std::string::npos) return false;
  return std::sscanf(stat.c_str() + comm_end + 1, " %c %d %d", &out.state, &out.parent, &out.group) == 3;
}

std::vector<pid_t> all_pids() {
  std::vector<pid_t> pids;
  if (DIR* dir = ::opendir("/proc")) {
    while (const dirent* entry = ::readdir(dir)) {
      char* end = nullptr;
      const long pid = std::strtol(entry->d_name, &end, 10);
      if (end != entry->d_name && *end == '\0') pids.push_back(static_cast<pid_t>(pid));
    }
    ::closedir(dir);
  }
  return pids;
}

bool stopped_state(char state) { return state == 'T' || state == 't'; }

// Waits until `pid` (a child of this process) has stopped, or ended; consumes no state of it, so
// that its owner still reaps it.
void wait_stopped_child(pid_t pid) {
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WSTOPPED | WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
}

// Waits until each of `pids` that still runs is stopped, within kFreezeLimit.
bool wait_stopped(const std::set<pid_t>& pids) {
  const auto deadline = Clock::now() + kFreezeLimit;
  for (const pid_t pid : pids) {
    for (ProcStat st; proc_stat(pid, st) && !stopped_state(st.state) && st.state != 'Z' && st.state != 'X';) {
      if (Clock::now() > deadline) return false;
      std::this_thread::yield();
    }
  }
  return true;
}

// Stops or continues `pid`'s group and the extra processes.
void signal_all(pid_t root, const std::set<pid_t>& extra, int sig) {
  if (root > 0) ::kill(-root, sig);
  for (const pid_t pid : extra) ::kill(pid, sig);
}

// Signals: the process group (the box's own, made at its start) and the escapees found since.
class SignalFreezer final : public Freezer {
 public:
  bool freeze() override {
    signal_all(root_, extra_, SIGSTOP);
    wait_stopped_child(root_);
    frozen_ = true;
    // Its group's other members and the escapees: stopped by the signal once it is delivered.
    std::set<pid_t> others = extra_;
    if (!members_.empty()) others.insert(members_.begin(), members_.end());
    return wait_stopped(others);
  }
  void thaw() override {
    frozen_ = false;
    signal_all(root_, extra_, SIGCONT);
  }
  void kill_all() override { signal_all(root_, extra_, SIGKILL); }
  std::string describe() const override { return "SIGSTOP of its process group and of every process it started"; }
  std::vector<pid_t> escaped(const std::set<pid_t>& live) override {
    std::vector<pid_t> found;
    members_.clear();
    for (const pid_t pid : descendants_of(root_, live)) {
      ProcStat st;
      if (pid == root_ || !proc_stat(pid, st)) continue;
      if (st.group == root_) {
        members_.insert(pid);
      } else if (extra_.insert(pid).second) {
        found.push_back(pid);
        if (frozen_) ::kill(pid, SIGSTOP);
      }
    }
    return found;
  }

 private:
  std::set<pid_t> extra_;    // descendants outside the group: escapees, stopped from now on
  std::set<pid_t> members_;  // the group's other processes, as last seen
  bool frozen_ = false;
};

// The cgroup v2 hierarchy's mount point and this process's cgroup in it ("" where there is none).
std::pair<std::string, std::string> own_cgroup() {
  std::string mount;
  std::ifstream mounts("/proc/self/mountinfo");
  for (std::string line; std::getline(mounts, line);) {
    // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE SUPEROPTIONS"
    const auto dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line);
    std::string id, parent, device, root, point;
    fields >> id >> parent >> device >> root >> point;
    if (root == "/") mount = point;
    break;
  }
  if (mount.empty()) return {};
  std::ifstream groups("/proc/self/cgroup");
  for (std::string line; std::getline(groups, line);) {
    if (line.rfind("0::", 0) == 0) return {mount, line.substr(3)};
  }
  return {};
}

// A cgroup of its own under this process's, made on creation, removed on destruction. Older
// ones whose scatterctl ended without removing them (SIGKILL) are removed on the first make.
class CgroupFreezer final : public Freezer {
 public:
  CgroupFreezer(std::string dir, std::string relative) : dir_(std::move(dir)), relative_(std::move(relative)) {}

  bool open_files(std::string& why) {
    procs_ = ::open((dir_ + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    freeze_ = ::open((dir_ + "/cgroup.freeze").c_str(), O_WRONLY | O_CLOEXEC);
    events_ = ::open((dir_ + "/cgroup.events").c_str(), O_RDONLY | O_CLOEXEC);
    kill_ = ::open((dir_ + "/cgroup.kill").c_str(), O_WRONLY | O_CLOEXEC);  // Linux 5.14 and later
    if (procs_ < 0 || freeze_ < 0 || events_ < 0) {
      why = fmt::format("{} has no freezer ({})", dir_, std::strerror(errno));
      return false;
    }
    return true;
  }

  ~CgroupFreezer() override {
    kill_all();
    const auto deadline = Clock::now() + std::chrono::seconds(1);
    while (event("populated") && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    for (int fd : {procs_, freeze_, events_, kill_}) {
      if (fd >= 0) ::close(fd);
    }
    ::rmdir(dir_.c_str());
  }

  int join_fd() const override { return procs_; }

  bool freeze() override {
    if (::pwrite(freeze_, "1", 1, 0) != 1) return false;
    signal_all(-1, extra_, SIGSTOP);
    const auto deadline = Clock::now() + kFreezeLimit;
    for (int spins = 0; !event("frozen"); ++spins) {
      if (Clock::now() > deadline) return false;
      if (spins > 200) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    return wait_stopped(extra_);
  }

  void thaw() override {
    (void)!::pwrite(freeze_, "0", 1, 0);
    signal_all(-1, extra_, SIGCONT);
  }

  void kill_all() override {
    if (kill_ < 0 || ::pwrite(kill_, "1", 1, 0) != 1) {
      std::istringstream pids(read_small(dir_ + "/cgroup.procs"));
      for (pid_t pid; pids >> pid;) ::kill(pid, SIGKILL);
    }
    signal_all(-1, extra_, SIGKILL);
  }

  std::string describe() const override { return "a cgroup v2 freezer of its own"; }

  std::vector<pid_t> escaped(const std::set<pid_t>& live) override {
    std::vector<pid_t> found;
    for (const pid_t pid : descendants_of(root_, live)) {
      if (pid == root_ || extra_.contains(pid)) continue;
      const auto groups = read_small(fmt::format("/proc/{}/cgroup", pid));
      const auto at = groups.find("0::");
      if (at == std::string::npos) continue;  // ended meanwhile
      const auto line = groups.substr(at + 3, groups.find('\n', at) - at - 3);
      if (line != relative_) {
        extra_.insert(pid);
        found.push_back(pid);
      }
    }
    return found;
  }

 private:
  // Whether cgroup.events says "KEY 1".
  bool event(const char* key) const {
    char buffer[256];
    const ssize_t got = ::pread(events_, buffer, sizeof buffer - 1, 0);
    if (got <= 0) return false;
    buffer[got] = '\0';
    const auto* at = std::strstr(buffer, key);
    return at != nullptr && at[std::strlen(key) + 1] == '1';
  }

  std::string dir_;
  std::string relative_;  // as /proc/PID/cgroup names it
  int procs_ = -1, freeze_ = -1, events_ = -1, kill_ = -1;
  std::set<pid_t> extra_;
};

// Removes the cgroups of scatterctl runs that have ended, once a process.
void sweep_stale(const std::string& parent) {
  static std::atomic<bool> swept{false};
  if (swept.exchange(true)) return;
  DIR* dir = ::opendir(parent.c_str());
  if (dir == nullptr) return;
  while (const dirent* entry = ::readdir(dir)) {
    int pid = 0, n = 0;
    if (std::sscanf(entry->d_name, "scatterctl-box-%d-%d", &pid, &n) != 2 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    const auto path = parent + "/" + entry->d_name;
    const int kill = ::open((path + "/cgroup.kill").c_str(), O_WRONLY | O_CLOEXEC);
    if (kill >= 0) {
      (void)!::write(kill, "1", 1);
      ::close(kill);
    }
    ::rmdir(path.c_str());
  }
  ::closedir(dir);
}

}  // namespace

std::set<pid_t> descendants_of(pid_t root, const std::set<pid_t>& live) {
  std::multimap<pid_t, pid_t> children;
  const pid_t self = ::getpid();
  std::set<pid_t> found;
  for (const pid_t pid : all_pids()) {
    ProcStat st;
    if (!proc_stat(pid, st)) continue;
    children.emplace(st.parent, pid);
    // An orphan this process adopted as the workers' subreaper is some box's escapee.
    if (st.parent == self && !live.contains(pid)) found.insert(pid);
  }
  std::vector<pid_t> queue{root};
  for (const pid_t pid : found) queue.push_back(pid);
  while (!queue.empty()) {
    const pid_t pid = queue.back();
    queue.pop_back();
    found.insert(pid);
    for (auto [it, end] = children.equal_range(pid); it != end; ++it) {
      if (!found.contains(it->second)) queue.push_back(it->second);
    }
  }
  return found;
}

std::unique_ptr<Freezer> Freezer::make(bool cgroup, std::string& why_not) {
  if (!cgroup) {
    why_not = "turned off (SCATTERCTL_BOX)";
    return std::make_unique<SignalFreezer>();
  }
  const auto [mount, own] = own_cgroup();
  if (mount.empty()) {
    why_not = "this machine has no cgroup v2 hierarchy";
    return std::make_unique<SignalFreezer>();
  }
  const auto parent = mount + (own == "/" ? "" : own);
  sweep_stale(parent);
  static std::atomic<int> made{0};
  const auto name = fmt::format("scatterctl-box-{}-{}", ::getpid(), made++);
  const auto dir = parent + "/" + name;
  if (::mkdir(dir.c_str(), 0755) != 0) {
    why_not = fmt::format("no cgroup can be made under {} ({})", parent, std::strerror(errno));
    return std::make_unique<SignalFreezer>();
  }
  auto freezer = std::make_unique<CgroupFreezer>(dir, (own == "/" ? "" : own) + "/" + name);
  if (!freezer->open_files(why_not)) return std::make_unique<SignalFreezer>();
  return freezer;
}

}  // namespace scatter::box
