// The box's operating-system layers (confine.hpp): a seccomp program written by hand (a dozen
// rules; no library), a Landlock ruleset, and capabilities dropped.

#include "confine.hpp"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>

#include <fmt/format.h>

namespace scatter::box {
namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
#endif

// Landlock's system calls have one number on every architecture; older headers lack some rights.
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

// Where `pid` stands in the program: the k of each rule that compares an argument with the
// box's own process id, filled in by the child (the only value not known before the fork).
constexpr std::uint32_t kOwnPid = 0xB0C5B0C5u;

// seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8 i (the low 32 bits first, little endian).
constexpr std::uint32_t arg_low(int i) { return static_cast<std::uint32_t>(16 + 8 * i); }

std::uint32_t errno_of(int e) { return SECCOMP_RET_ERRNO | (static_cast<std::uint32_t>(e) & SECCOMP_RET_DATA); }

// A little assembler for the program: rules over the system call number, each a jump past
// itself when the number differs.
class Program {
 public:
  void load(std::uint32_t offset) { code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
  void ret(std::uint32_t value) { code_.push_back(BPF_STMT(BPF_RET | BPF_K, value)); }
  // nr == `nr`: return `value`.
  void deny(long nr, std::uint32_t value) {
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 1));
    ret(value);
  }
  // nr == `nr`: allowed when the low word of argument `arg` is the box's own pid, else `value`.
  // Both ends return, so the number stays in the accumulator for the rules that follow.
  void own_pid_only(long nr, int arg, std::uint32_t value) {
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 4));
    load(arg_low(arg));
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kOwnPid, 0, 1));
    ret(SECCOMP_RET_ALLOW);
    ret(value);
  }
  // clone: a thread (CLONE_THREAD in its flags, argument 0) is allowed; anything else gets `value`.
  void threads_only(long nr, std::uint32_t value) {
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 4));
    load(arg_low(0));
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
    ret(SECCOMP_RET_ALLOW);
    ret(value);
  }
  std::vector<sock_filter> take() { return std::move(code_); }

 private:
  std::vector<sock_filter> code_;
};

#if defined(__x86_64__) || defined(__aarch64__)
std::vector<sock_filter> seccomp_program() {
  const auto eperm = errno_of(EPERM);
  Program p;
  p.load(offsetof(seccomp_data, arch));
  // Another architecture's numbers (a 32-bit call) would mean other calls: refused outright.
  std::vector<sock_filter> head = p.take();
  head.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0));
  head.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  Program rules;
  rules.load(offsetof(seccomp_data, nr));
#if defined(__x86_64__)
  // x32's numbers (bit 30) are the same calls by other numbers.
  auto x32 = rules.take();
  x32.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
  x32.push_back(BPF_STMT(BPF_RET | BPF_K, errno_of(ENOSYS)));
  head.insert(head.end(), x32.begin(), x32.end());
  rules.deny(SYS_fork, eperm);
  rules.deny(SYS_vfork, eperm);
#endif
  // Reading or writing another process's memory, or stopping it.
  rules.deny(SYS_ptrace, eperm);
  rules.deny(SYS_process_vm_readv, eperm);
  rules.deny(SYS_process_vm_writev, eperm);
  rules.deny(SYS_kcmp, eperm);
  rules.deny(SYS_pidfd_open, eperm);
  rules.deny(SYS_pidfd_getfd, eperm);
  rules.deny(SYS_pidfd_send_signal, eperm);
  // New processes: clone3's flags sit in memory a program cannot read; glibc then uses clone.
  rules.deny(SYS_clone3, errno_of(ENOSYS));
  rules.threads_only(SYS_clone, eperm);
  rules.deny(SYS_unshare, eperm);
  rules.deny(SYS_setns, eperm);
  // Signals: to itself only (raise, abort and a thread's signals name the own pid).
  rules.own_pid_only(SYS_kill, 0, eperm);
  rules.own_pid_only(SYS_tgkill, 0, eperm);
  rules.own_pid_only(SYS_rt_sigqueueinfo, 0, eperm);
  rules.own_pid_only(SYS_rt_tgsigqueueinfo, 0, eperm);
  rules.deny(SYS_tkill, eperm);
  rules.ret(SECCOMP_RET_ALLOW);
  auto body = rules.take();
  head.insert(head.end(), body.begin(), body.end());
  return head;
}
#endif

// The rights Landlock handles at `abi`: every way of writing to the file system.
std::uint64_t write_rights(int abi) {
  std::uint64_t rights = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                         LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                         LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                         LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
  return rights;
}

// Allows `rights` beneath `path`; false (errno set) when it cannot be opened or added.
bool allow_beneath(int ruleset, const std::string& path, std::uint64_t rights) {
  const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return false;
  landlock_path_beneath_attr rule{};
  rule.allowed_access = rights;
  rule.parent_fd = fd;
  const long added = ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  const int err = errno;
  ::close(fd);
  errno = err;
  return added == 0;
}

void prepare_landlock(Confinement& c, const std::string& writable) {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) {
    c.missing.push_back(fmt::format("Landlock: this kernel has none ({})", std::strerror(errno)));
    return;
  }
  const auto rights = write_rights(static_cast<int>(abi));
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = rights;
  const long fd = ::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (fd < 0) {
    c.missing.push_back(fmt::format("Landlock: no ruleset ({})", std::strerror(errno)));
    return;
  }
  // The private folder whole; existing devices (/dev/null, a GPU's) may be opened for writing,
  // never created or removed.
  const auto device_rights = LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0);
  if (!allow_beneath(static_cast<int>(fd), writable, rights) || !allow_beneath(static_cast<int>(fd), "/dev", device_rights)) {
    c.missing.push_back(fmt::format("Landlock: a rule could not be added ({})", std::strerror(errno)));
    ::close(static_cast<int>(fd));
    return;
  }
  c.landlock_ruleset = static_cast<int>(fd);
  c.landlock_abi = static_cast<int>(abi);
  c.held.push_back(fmt::format("Landlock (ABI {}): writes only under its private folder", abi));
}

// Every capability out of the bounding set and the inheritable and ambient sets, so that the exec
// that follows leaves root with none (only root holds any to drop).
int drop_capabilities() noexcept {
  for (int cap = 0; cap <= 63; ++cap) {
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;  // past the last one
  }
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return errno;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capget, &header, data) != 0) return errno;
  data[0].inheritable = data[1].inheritable = 0;
  if (::syscall(SYS_capset, &header, data) != 0) return errno;
  return 0;
}

}  // namespace

Layers Layers::from_environment() {
  Layers layers;
  const char* text = std::getenv("SCATTERCTL_BOX");
  if (text == nullptr) return layers;
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    if (item == "-seccomp") layers.seccomp = false;
    if (item == "-landlock") layers.landlock = false;
    if (item == "-caps") layers.caps = false;
    if (item == "-cgroup") layers.cgroup = false;
  }
  return layers;
}

Confinement::~Confinement() {
  if (landlock_ruleset >= 0) ::close(landlock_ruleset);
}

void prepare(Confinement& c, const std::string& writable) {
  c.wanted = Layers::from_environment();
#if defined(__x86_64__) || defined(__aarch64__)
  if (!c.wanted.seccomp) {
    c.missing.push_back("seccomp: turned off (SCATTERCTL_BOX)");
  } else if (::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
    c.missing.push_back(fmt::format("seccomp: this kernel has none ({})", std::strerror(errno)));
  } else {
    c.filter = seccomp_program();
    c.held.push_back("seccomp: no new process, no ptrace or process_vm calls, no signal to another process");
  }
#else
  c.missing.push_back("seccomp: no program for this architecture");
#endif
  if (c.wanted.landlock) {
    prepare_landlock(c, writable);
  } else {
    c.missing.push_back("Landlock: turned off (SCATTERCTL_BOX)");
  }
  if (!c.wanted.caps) {
    c.missing.push_back("capabilities: kept (SCATTERCTL_BOX)");
  } else {
    c.held.push_back(::geteuid() == 0 ? "no capabilities (root without CAP_SYS_PTRACE and the rest)"
                                      : "no capabilities (not root)");
  }
}

int apply_in_child(Confinement& c, const char*& layer) noexcept {
  layer = "no_new_privs";
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  layer = "capabilities";
  if (c.wanted.caps && ::geteuid() == 0) {
    if (const int err = drop_capabilities(); err != 0) return err;
  }
  layer = "Landlock";
  if (c.landlock_ruleset >= 0 && ::syscall(SYS_landlock_restrict_self, c.landlock_ruleset, 0) != 0) return errno;
  layer = "seccomp";
  if (!c.filter.empty()) {
    const auto own = static_cast<std::uint32_t>(::getpid());
    for (auto& instruction : c.filter) {
      if (instruction.k == kOwnPid && BPF_CLASS(instruction.code) == BPF_JMP) instruction.k = own;
    }
    sock_fprog program{static_cast<unsigned short>(c.filter.size()), c.filter.data()};
    if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) return errno;
  }
  return 0;
}

void shield_this_process() {
  static std::once_flag once;
  std::call_once(once, [] { ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); });
}

}  // namespace scatter::box
