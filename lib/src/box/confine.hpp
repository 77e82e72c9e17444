#pragma once
// What the operating system lets the box take from a kernel's process, prepared in scatterctl
// before the fork and applied in the child before exec (docs/backends.md, "The box"):
// - seccomp: no ptrace or process_vm calls, no new process other than a thread, no signal to
//   another process;
// - Landlock: files written only under the box's private folder (and existing devices);
// - no capabilities: a kernel run as root keeps root's files but loses CAP_SYS_PTRACE and the
//   rest, so that scatterctl's memory, which it makes non-dumpable, stays out of reach.
// Each layer degrades on its own: where the kernel refuses one, the box runs without it and
// says which held.

#include <linux/filter.h>

#include <string>
#include <vector>

namespace scatter::box {

/// The layers a box asks for. SCATTERCTL_BOX="-seccomp,-landlock,-caps,-cgroup" takes some
/// away (tests of each degraded mode; a machine where a layer breaks an honest kernel).
struct Layers {
  bool seccomp = true;
  bool landlock = true;
  bool caps = true;    ///< drop every capability
  bool cgroup = true;  ///< freeze with a cgroup v2 freezer (freezer.hpp)
  static Layers from_environment();
};

/// The confinement of one box, made before fork: only system calls remain for the child.
struct Confinement {
  Layers wanted;
  std::vector<sock_filter> filter;  ///< the seccomp program; empty: no seccomp here
  int landlock_ruleset = -1;        ///< a Landlock ruleset fd; -1: no Landlock here
  int landlock_abi = 0;
  std::vector<std::string> held;     ///< "seccomp", "Landlock (ABI 7)", "no capabilities"
  std::vector<std::string> missing;  ///< "Landlock: the kernel has none (ENOSYS)", ...

  Confinement() = default;
  ~Confinement();
  Confinement(const Confinement&) = delete;
  Confinement& operator=(const Confinement&) = delete;
};

/// Prepares the layers `wanted` asks for and this machine has; `writable` is the one folder the
/// box may write under. Never throws for a layer the kernel lacks: it is listed as missing.
void prepare(Confinement& c, const std::string& writable);

/// In the child, after fork and before exec: system calls only (no allocation, no lock). Returns
/// 0, or the errno of the layer that could not be applied, named in `layer` (the child then
/// exits: a box must not run with less than it said it had).
int apply_in_child(Confinement& c, const char*& layer) noexcept;

/// Makes this process non-dumpable, once: its /proc/PID/mem, fd and environ are then closed to a
/// process without CAP_SYS_PTRACE, which a box's kernel no longer has.
void shield_this_process();

}  // namespace scatter::box
