#pragma once
// A worker process speaking JSON lines on its fds 3 (requests) and 4 (answers), and the
// private directory its tensors pass through (docs/backends.md, "Framework workers").

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "box/confine.hpp"
#include "box/freezer.hpp"
#include "scatter/backend.hpp"

namespace scatter::external {

/// The workers this process runs now (its other children are what workers left behind).
std::set<pid_t> live_worker_pids();

/// A directory only this user can enter (mode 0700), under /dev/shm when it exists,
/// else $TMPDIR or /tmp; removed with everything in it on destruction.
class PrivateDir {
 public:
  explicit PrivateDir(const std::string& prefix);
  /// A fresh folder inside `parent` (PARENT/STEM-XXXXXX): one a worker request.
  PrivateDir(const std::string& parent, const std::string& stem);
  ~PrivateDir();
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  void make(std::string pattern);

  std::string path_;
};

/// The process ended, or stopped answering within its time: the request's outcome.
struct ProcessFailure {
  enum class Kind { crashed, exited, timed_out, protocol } kind = Kind::crashed;
  std::string what;  ///< "killed by signal 11 (Segmentation fault)", "exited with status 3", ...
};

class WorkerProcess {
 public:
  /// argv[0] is looked up on PATH when it has no '/'; `env` adds to the environment;
  /// stdout and stderr of the process append to `log_path`. Nothing reaches a shell.
  WorkerProcess(std::vector<std::string> argv, std::vector<std::pair<std::string, std::string>> env,
                std::string log_path);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  /// Runs it in a box (docs/backends.md, "The box"): confined by `confinement` from before its
  /// exec, frozen between calls by a freezer of its own, and given a socket on fd 5 over which
  /// descriptors travel (send_fds). Before start().
  void box(std::shared_ptr<box::Confinement> confinement);
  /// Starts the process; throws ProcessFailure when it cannot be started.
  void start();
  bool running() const { return pid_ > 0; }
  /// Sends one request and waits for its answer line. Throws ProcessFailure (the
  /// process is then stopped), or Error(interrupted) on Ctrl-C. With `clock`, the request
  /// asked for the timer's signals: a `ready` is answered with `go`, and `clock` gets the time
  /// from `go` to `done` on this process's clock (docs/backends.md, "The clock").
  nlohmann::json request(const nlohmann::json& message, double timeout_seconds,
                         std::optional<OuterClock>* clock = nullptr);
  /// The median, on this process's clock, of `calls` null calls: the timer's signals with no
  /// call between them, after the caches are flushed as for a cold sample when `cold`. It is what
  /// scatterctl's clock of a call holds beyond the call. Asked before `hello`, before a worker
  /// loads a kernel whose code could slow its signals down to hide a lie in them; 0 where the
  /// worker does not know the request.
  double null_call_seconds(int calls, bool cold, double timeout_seconds);
  /// The box's timed call: `message` is sent while the box is frozen, scatterctl's clock starts,
  /// the box is thawed, and its answer line stops the clock and freezes it again (before anything
  /// of the answer is read). `seconds` gets the clock.
  nlohmann::json go(const nlohmann::json& message, double timeout_seconds, double& seconds);
  /// Sends descriptors over the box's fd 5 (SharedRegion's, before a "case" request).
  void send_fds(const int* fds, int count);
  /// Reads `bytes` at `address` of the box's memory (process_vm_readv), while it is frozen. An
  /// empty string, or why not (the address unmapped, ptrace restricted on this machine).
  std::string read_memory(std::uint64_t address, void* into, std::size_t bytes) const;
  /// Processes started by the worker that a freeze does not reach (freezer.hpp); each is stopped
  /// from now on.
  std::vector<pid_t> escaped();
  /// How the box holds the kernel: its freezer and confinement, or why a layer is missing.
  std::string box_description() const;
  /// Asks politely (a shutdown request), then kills the process group.
  void stop();
  /// Between requests the process group is stopped (SIGSTOP) and continued (SIGCONT) when the
  /// next request is sent: a bench's other backends are timed while this worker's threads are
  /// idle, and a thread pool that spins after a call takes no CPU from them. Should scatterctl
  /// die meanwhile, the kernel hangs up the orphaned group and continues it, and it ends.
  void freeze_between_requests() { freeze_between_requests_ = true; }
  /// The last lines of the log, for error reports.
  std::string log_tail(std::size_t max_bytes = 2000) const;

 private:
  [[noreturn]] void fail(ProcessFailure::Kind kind, std::string what);
  void send_line(const std::string& line);
  // Reads what the worker wrote into the buffer (one read); a closed channel or an endless line fails.
  void read_some();
  // The next answer line, waited for until `deadline`: an interrupt, a time-out or the worker's
  // end fail.
  std::string next_line(std::chrono::steady_clock::time_point deadline, double timeout_seconds);
  std::string reap_description();
  /// The worker's end ("exited with status 0"), when it has ended; it is reaped, and its
  /// process group killed. nullopt while it runs.
  std::optional<std::string> ended_description();
  /// The worker was reaped: no longer live, and what it left behind is ended.
  void forget_reaped();
  /// Continues the process group where it was frozen after the last answer.
  void thaw();
  /// Stops it after an answer (freeze_between_requests, or a box); a box that cannot be
  /// frozen is killed: its call fails.
  void freeze();
  /// Keeps the log's last kLogTailKept bytes once it passes kMaxLogBytes.
  void trim_log();

  static constexpr off_t kMaxLogBytes = 8 << 20;
  static constexpr std::size_t kLogTailKept = 64 << 10;

  std::vector<std::string> argv_;
  std::vector<std::pair<std::string, std::string>> env_;
  std::string log_path_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  int log_fd_ = -1;
  std::string buffer_;
  bool freeze_between_requests_ = false;
  bool frozen_ = false;
  std::shared_ptr<box::Confinement> confinement_;  // a box's, when boxed
  std::unique_ptr<box::Freezer> freezer_;  // made at each start of a frozen worker
  std::string no_cgroup_;  // why the freezer is not a cgroup's
  int fd_channel_ = -1;    // a box's end of its fd 5
};

}  // namespace scatter::external
