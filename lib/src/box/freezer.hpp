#pragma once
// The box's processes, stopped outside the calls scatterctl times (docs/backends.md, "The box"):
// a cgroup v2 freezer where the machine lets scatterctl make a cgroup (every process in it,
// whatever it does to its session or group), else SIGSTOP to the process group and to every
// descendant found outside it. Either way a freeze returns only once the box has stopped.

#include <sys/types.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace scatter::box {

class Freezer {
 public:
  /// A cgroup of its own when `cgroup` is asked for and this machine allows it; else signals.
  /// `why_not` says why there is no cgroup.
  static std::unique_ptr<Freezer> make(bool cgroup, std::string& why_not);
  virtual ~Freezer() = default;

  /// The fd the child writes "0" into before exec to enter the cgroup (-1 with signals).
  virtual int join_fd() const { return -1; }
  /// The box's first process, once forked.
  virtual void started(pid_t pid) { root_ = pid; }
  /// Stops every process of the box and waits until they are; false when it could not (the box
  /// is then killed by the caller).
  virtual bool freeze() = 0;
  virtual void thaw() = 0;
  /// Kills every process of the box (its root is reaped by its owner).
  virtual void kill_all() = 0;
  /// "a cgroup v2 freezer" / "SIGSTOP of its process group and its descendants".
  virtual std::string describe() const = 0;
  /// Processes that came from the box and are outside what a freeze stops (a session or cgroup
  /// of their own): each is a kernel escaping the box. They are stopped from now on too.
  /// `live`: this process's workers (any other child it adopted came from some box).
  virtual std::vector<pid_t> escaped(const std::set<pid_t>& live) = 0;

 protected:
  pid_t root_ = -1;
};

/// The processes descended from `root` (by their parents), and the orphans this process adopted
/// as their subreaper that are not one of `live` (workers of its own).
std::set<pid_t> descendants_of(pid_t root, const std::set<pid_t>& live);

}  // namespace scatter::box
