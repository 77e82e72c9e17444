// Worker processes: fork/exec with no shell, a process group of their own, the
// protocol on fds 3/4, and a private tensor directory that never outlives the run.

#include "process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "box/shared.hpp"
#include "core/bounded_json.hpp"
#include "scatter/cancel.hpp"
#include "scatter/error.hpp"

namespace scatter::external {
namespace {

using Clock = std::chrono::steady_clock;

// An answer line is a small JSON object (tensors travel as files): a longer one is refused
// rather than buffered without end.
constexpr std::size_t kMaxAnswerLine = std::size_t{1} << 20;

// Why an answer line was refused, quoting its start only.
std::string not_an_answer(const std::string& line) {
  if (const auto where = detail::too_deep(line, detail::kMaxJsonDepth)) {
    return fmt::format("answered a line of {} bytes with {} (an answer is a small object)", line.size(), *where);
  }
  return fmt::format("answered a line that is not a JSON object: '{}'", line.substr(0, 200));
}

std::string signal_text(int sig) {
  const char* name = strsignal(sig);
  return fmt::format("killed by signal {} ({})", sig, name ? name : "?");
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The private folders of earlier runs that ended without removing them (SIGKILL, a crash):
// under `base`, named PREFIX-PID-XXXXXX, real folders of this user, whose PID no longer runs.
// Nobody else's folder, and no running scatterctl's, is touched.
void remove_stale_dirs(const std::string& base, const std::string& prefix) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.rfind(prefix + "-", 0) != 0) continue;
    const auto rest = name.substr(prefix.size() + 1);
    const auto dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || dash > 9 ||
        rest.find_first_not_of("0123456789") != dash) continue;
    const auto pid = static_cast<pid_t>(std::stol(rest.substr(0, dash)));
    struct stat st {};
    if (pid == ::getpid() || ::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) {
      continue;
    }
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // still running (or not ours to ask)
    std::error_code ignored;
    std::filesystem::remove_all(it->path(), ignored);
  }
}

// The workers that run now. Any other child of this process is a descendant that a worker left
// behind (adopted: adopt_orphans). Never destroyed: a worker owned by a static (scatter_bench's
// backends) is stopped after this file's statics would be, and must still find the set (a
// destroyed one was freed twice, and scatter_bench aborted at its exit).
std::set<pid_t>& live_workers() {
  static auto* pids = new std::set<pid_t>;
  return *pids;
}

// Held over live_workers and from a worker's fork to its entry there: bench checks several
// workers on threads at once, and a sweep for orphans between one's fork and its entry would
// take the new worker for an orphan and kill it.
std::mutex& workers_mutex() {
  static auto* m = new std::mutex;  // never destroyed, as live_workers
  return *m;
}

// A worker's child that calls setsid() escapes the process group that ends a worker; as the
// workers' subreaper, this process adopts it when its parent ends, and ends it.
void adopt_orphans() {
  static const bool adopting = ::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
  (void)adopting;
}

// The parent's pid of /proc/PID/stat ("PID (COMM) STATE PPID ..."; COMM may hold ')'), or -1.
// Read with read(2), not a stream: a process that ends between open and read makes the read
// fail with ESRCH, which libstdc++'s filebuf throws whatever the stream's exception mask.
pid_t parent_of(const std::string& pid) {
  const int fd = ::open(("/proc/" + pid + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buffer[1024];  // COMM is at most 16 bytes, so PPID lies well inside
  const ssize_t got = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  if (got <= 0) return -1;
  const std::string stat(buffer, static_cast<std::size_t>(got));
  const auto comm_end = stat.rfind(')');
  if (comm_end == std::string::npos) return -1;
  char state = 0;
  int ppid = -1;
  return std::sscanf(stat.c_str() + comm_end + 1, " %c %d", &state, &ppid) == 2 ? ppid : -1;
}

// Kills and reaps every adopted descendant; each one's own children are adopted in turn when
// it ends, hence the rounds.
void end_adopted_orphans() {
  const std::lock_guard lock(workers_mutex());
  const pid_t self = ::getpid();
  for (int round = 0; round < 16; ++round) {
    std::vector<pid_t> orphans;
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
      const auto name = it->path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const auto pid = static_cast<pid_t>(std::stol(name));
      if (pid != self && parent_of(name) == self && !live_workers().contains(pid)) orphans.push_back(pid);
    }
    if (orphans.empty()) return;
    for (const pid_t pid : orphans) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
}

}  // namespace

std::set<pid_t> live_worker_pids() {
  const std::lock_guard lock(workers_mutex());
  return live_workers();
}

PrivateDir::PrivateDir(const std::string& prefix) {
  std::string base = "/dev/shm";
  if (!std::filesystem::is_directory(base) || ::access(base.c_str(), W_OK) != 0) {
    const char* tmp = std::getenv("TMPDIR");
    base = tmp && *tmp ? tmp : "/tmp";
  }
  static const bool swept = (remove_stale_dirs(base, prefix), true);  // once a process
  (void)swept;
  make(fmt::format("{}/{}-{}-XXXXXX", base, prefix, ::getpid()));
}

PrivateDir::PrivateDir(const std::string& parent, const std::string& stem) { make(fmt::format("{}/{}-XXXXXX", parent, stem)); }

void PrivateDir::make(std::string pattern) {
  // mkdtemp: a name nobody can have planted, made with mode 0700, or an error.
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw Error(ErrorCode::io, "", fmt::format("cannot make a private directory '{}': {}", pattern, std::strerror(errno)));
  }
  path_ = std::move(pattern);
}

PrivateDir::~PrivateDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

WorkerProcess::WorkerProcess(std::vector<std::string> argv, std::vector<std::pair<std::string, std::string>> env,
                             std::string log_path)
    : argv_(std::move(argv)), env_(std::move(env)), log_path_(std::move(log_path)) {}

WorkerProcess::~WorkerProcess() {
  stop();
  close_fd(log_fd_);
}

void WorkerProcess::forget_reaped() {
  {
    const std::lock_guard lock(workers_mutex());
    live_workers().erase(pid_);
  }
  pid_ = -1;
  end_adopted_orphans();
}

void WorkerProcess::trim_log() {
  struct stat st {};
  if (log_fd_ < 0 || ::fstat(log_fd_, &st) != 0 || st.st_size <= kMaxLogBytes) return;
  std::string tail(kLogTailKept, '\0');
  const auto n = ::pread(log_fd_, tail.data(), tail.size(), st.st_size - static_cast<off_t>(tail.size()));
  tail.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  const auto note = fmt::format("[scatterctl: {} bytes of this log cut; its last {} follow]\n",
                                st.st_size - static_cast<off_t>(tail.size()), tail.size());
  if (::ftruncate(log_fd_, 0) != 0) return;
  (void)!::write(log_fd_, note.data(), note.size());  // O_APPEND: after whatever the worker wrote meanwhile
  (void)!::write(log_fd_, tail.data(), tail.size());
}

void WorkerProcess::start() {
  // Socket pairs rather than pipes: send() with MSG_NOSIGNAL never raises SIGPIPE.
  int requests[2];  // parent writes [1], child reads [0] as fd 3
  int answers[2];   // child writes [1] as fd 4, parent reads [0]
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, requests) != 0) fail(ProcessFailure::Kind::exited, std::strerror(errno));
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, answers) != 0) {
    ::close(requests[0]);
    ::close(requests[1]);
    fail(ProcessFailure::Kind::exited, std::strerror(errno));
  }
  // Read and trimmed here (trim_log), appended to by the worker; kept across restarts.
  if (log_fd_ < 0) log_fd_ = ::open(log_path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  const int log_fd = log_fd_;
  adopt_orphans();
  // A box's fd 5, for descriptors; a freezer of its own each start (a new cgroup).
  int channel[2] = {-1, -1};
  if (confinement_ && ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) {
    for (int fd : {requests[0], requests[1], answers[0], answers[1]}) ::close(fd);
    fail(ProcessFailure::Kind::exited, std::strerror(errno));
  }
  freezer_.reset();
  if (freeze_between_requests_ || confinement_) {
    freezer_ = box::Freezer::make(!confinement_ || confinement_->wanted.cgroup, no_cgroup_);
  }
  const int join_fd = freezer_ ? freezer_->join_fd() : -1;
  box::Confinement* confine = confinement_.get();
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  for (const auto& entry : env_) {
    const std::string prefix = entry.first + "=";
    std::erase_if(env_strings, [&prefix](const std::string& s) { return s.rfind(prefix, 0) == 0; });
    env_strings.push_back(prefix + entry.second);
  }
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<char*> argvp;
  for (auto& a : argv_) argvp.push_back(a.data());
  argvp.push_back(nullptr);

  // The child only calls async-signal-safe functions before exec, so the lock it inherits held
  // is never waited for.
  std::unique_lock lock(workers_mutex());
  const auto stops = stopping_signals();  // made before the fork: the child may not allocate
  const pid_t pid = ::fork();
  if (pid < 0) {
    lock.unlock();
    const int err = errno;
    for (int fd : {requests[0], requests[1], answers[0], answers[1], channel[0], channel[1]}) {
      if (fd >= 0) ::close(fd);
    }
    fail(ProcessFailure::Kind::exited, fmt::format("fork failed: {}", std::strerror(err)));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    if (join_fd >= 0 && ::write(join_fd, "0", 1) != 1) ::_exit(125);  // into the box's cgroup
    // scatterctl's handlers and ignored signals (an ignored one outlives exec) are not the worker's.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (const int s : stops) ::sigaction(s, &dfl, nullptr);
    ::sigaction(SIGPIPE, &dfl, nullptr);
    ::sigaction(SIGXFSZ, &dfl, nullptr);
    // The box's ruleset out of the way of the protocol's numbers first.
    if (confine != nullptr && confine->landlock_ruleset >= 0) {
      confine->landlock_ruleset = ::fcntl(confine->landlock_ruleset, F_DUPFD_CLOEXEC, 10);
    }
    // fds 3 and 4 are the protocol; dup2 clears FD_CLOEXEC on the copies.
    int in = ::fcntl(requests[0], F_DUPFD_CLOEXEC, 10);
    int out = ::fcntl(answers[1], F_DUPFD_CLOEXEC, 10);
    if (in < 0 || out < 0 || ::dup2(in, 3) < 0 || ::dup2(out, 4) < 0) ::_exit(126);
    if (channel[1] >= 0) {
      const int fds = ::fcntl(channel[1], F_DUPFD_CLOEXEC, 10);
      if (fds < 0 || ::dup2(fds, 5) < 0) ::_exit(126);
    }
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, 0);
    if (log_fd >= 0) {
      ::dup2(log_fd, 1);
      ::dup2(log_fd, 2);
    }
    // The box's layers last: nothing above needs what they take away.
    if (confine != nullptr) {
      const char* layer = "";
      if (const int err = box::apply_in_child(*confine, layer); err != 0) {
        // strerror may allocate: the errno's number is written by hand.
        char why[160];
        int n = 0;
        for (const char* part : {"scatterctl: the box could not apply its layer ", layer, " (errno "}) {
          for (; *part && n < 120; ++part) why[n++] = *part;
        }
        char digits[8];
        int d = 0;
        for (int e = err; e > 0 && d < 7; e /= 10) digits[d++] = static_cast<char>('0' + e % 10);
        while (d > 0) why[n++] = digits[--d];
        for (const char* part = "); it did not start\n"; *part; ++part) why[n++] = *part;
        (void)!::write(2, why, static_cast<std::size_t>(n));
        ::_exit(125);
      }
    }
    if (std::strchr(argvp[0], '/')) {
      ::execve(argvp[0], argvp.data(), envp.data());
    } else {
      ::execvpe(argvp[0], argvp.data(), envp.data());
    }
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so that a kill never races the child's own call
  live_workers().insert(pid);
  lock.unlock();
  ::close(requests[0]);
  ::close(answers[1]);
  if (channel[1] >= 0) ::close(channel[1]);
  fd_channel_ = channel[0];
  if (freezer_) freezer_->started(pid);
  pid_ = pid;
  to_child_ = requests[1];
  from_child_ = answers[0];
  buffer_.clear();
}

void WorkerProcess::send_line(const std::string& line) {
  std::size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = ::send(to_child_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(ProcessFailure::Kind::crashed, reap_description());
    }
    sent += static_cast<std::size_t>(n);
  }
}

nlohmann::json WorkerProcess::request(const nlohmann::json& message, double timeout_seconds,
                                      std::optional<OuterClock>* clock) {
  if (!running()) start();
  thaw();
  trim_log();
  send_line(message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  const auto id = message.contains("id") ? message["id"] : nlohmann::json();
  // The timer's signals: ready -> go (the clock starts), done (it stops).
  Clock::time_point go_sent;
  bool going = false;
  const auto signal = [&](const std::string& what) {
    if (!clock) return;  // not asked for: ignored
    if (what == "ready" && !going) {
      const auto line = nlohmann::json({{"id", id}, {"op", "go"}}).dump() + "\n";
      go_sent = Clock::now();
      going = true;
      send_line(line);
    } else if (what == "done" && going) {
      *clock = OuterClock{std::chrono::duration<double>(Clock::now() - go_sent).count(), 0.0};
    } else {
      fail(ProcessFailure::Kind::protocol,
           fmt::format("sent the timer signal '{}' out of turn (ready, then done)", what.substr(0, 40)));
    }
  };
  const auto deadline = deadline_after(Clock::now(), timeout_seconds);
  for (;;) {
    const auto answer = next_line(deadline, timeout_seconds);
    auto answered = detail::parse_answer(answer);
    if (!answered) fail(ProcessFailure::Kind::protocol, not_an_answer(answer));
    auto& parsed = *answered;
    if (!id.is_null() && parsed.value("id", nlohmann::json()) != id) continue;  // a stale answer
    if (const auto it = parsed.find("signal"); it != parsed.end()) {
      signal(it->is_string() ? it->get<std::string>() : detail::preview(*it));
      continue;
    }
    freeze();
    return parsed;
  }
}

std::string WorkerProcess::next_line(Clock::time_point deadline, double timeout_seconds) {
  for (;;) {
    if (const auto newline = buffer_.find('\n'); newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    if (interrupted()) {
      stop();
      throw Error(ErrorCode::interrupted, "", "the run was interrupted");
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) fail(ProcessFailure::Kind::timed_out, fmt::format("did not answer within {:.3g} s", timeout_seconds));
    pollfd p{from_child_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 100)));
    if (ready < 0 && errno != EINTR) fail(ProcessFailure::Kind::protocol, std::strerror(errno));
    trim_log();
    if (ready <= 0) {
      // A worker that ended while a process it started still holds the pipe would otherwise
      // be waited for until the time-out.
      if (const auto ended = ended_description()) fail(ProcessFailure::Kind::crashed, *ended);
      continue;
    }
    read_some();
  }
}

void WorkerProcess::read_some() {
  char chunk[65536];
  ssize_t n = 0;
  while ((n = ::read(from_child_, chunk, sizeof chunk)) < 0 && errno == EINTR) {
  }
  if (n <= 0) fail(ProcessFailure::Kind::crashed, reap_description());
  buffer_.append(chunk, static_cast<std::size_t>(n));
  if (buffer_.size() > kMaxAnswerLine && buffer_.find('\n') == std::string::npos) {
    fail(ProcessFailure::Kind::protocol,
         fmt::format("answered more than {} bytes without ending the line (an answer holds no tensor data)",
                     kMaxAnswerLine));
  }
}

double WorkerProcess::null_call_seconds(int calls, bool cold, double timeout_seconds) {
  std::vector<double> seconds;
  for (int k = 0; k < calls; ++k) {
    std::optional<OuterClock> clock;
    const auto answer = request({{"id", -1 - k}, {"op", "null_call"}, {"flush_caches", cold}}, timeout_seconds, &clock);
    if (answer.value("status", "") != "ok" || !clock) return 0.0;  // no allowance for the signals
    seconds.push_back(clock->seconds);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

std::optional<std::string> WorkerProcess::ended_description() {
  if (pid_ <= 0) return std::nullopt;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) != pid_) return std::nullopt;
  ::kill(-pid_, SIGKILL);  // what it left behind in its group, holding the pipe
  if (freezer_) freezer_->kill_all();
  forget_reaped();
  if (WIFSIGNALED(status)) return signal_text(WTERMSIG(status));
  return fmt::format("exited with status {}", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

std::string WorkerProcess::reap_description() {
  if (pid_ <= 0) return "not running";
  int status = 0;
  // The pipe closed: the process is ending; give it a moment to be reaped.
  for (int i = 0; i < 50; ++i) {
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      forget_reaped();
      if (WIFSIGNALED(status)) return signal_text(WTERMSIG(status));
      if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
      return "ended";
    }
    ::usleep(20000);
  }
  return "closed its answer pipe";
}

void WorkerProcess::fail(ProcessFailure::Kind kind, std::string what) {
  if (kind == ProcessFailure::Kind::crashed && pid_ > 0 && what == "closed its answer pipe") what = reap_description();
  stop();
  throw ProcessFailure{kind, std::move(what)};
}

void WorkerProcess::thaw() {
  if (frozen_ && pid_ > 0 && freezer_) freezer_->thaw();
  frozen_ = false;
}

void WorkerProcess::freeze() {
  if (!freezer_ || pid_ <= 0) return;
  if (!freezer_->freeze()) {
    fail(ProcessFailure::Kind::crashed, fmt::format("could not be stopped after its answer within 2 s ({})",
                                                    freezer_->describe()));
  }
  frozen_ = true;
}

void WorkerProcess::box(std::shared_ptr<box::Confinement> confinement) { confinement_ = std::move(confinement); }

void WorkerProcess::send_fds(const int* fds, int count) {
  if (fd_channel_ < 0 || !box::send_fds(fd_channel_, fds, count)) {
    fail(ProcessFailure::Kind::crashed, fmt::format("its descriptor channel is closed: {}", reap_description()));
  }
}

std::string WorkerProcess::read_memory(std::uint64_t address, void* into, std::size_t bytes) const {
  if (bytes == 0) return "";
  iovec local{into, bytes};
  iovec remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)), bytes};
  const auto got = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
  if (got == static_cast<ssize_t>(bytes)) return "";
  if (got < 0) return std::strerror(errno);
  return fmt::format("only {} of {} bytes could be read", got, bytes);
}

std::vector<pid_t> WorkerProcess::escaped() {
  if (!freezer_ || pid_ <= 0) return {};
  return freezer_->escaped(live_worker_pids());
}

std::string WorkerProcess::box_description() const {
  std::vector<std::string> parts;
  if (freezer_) parts.push_back("frozen between calls by " + freezer_->describe() +
                                (no_cgroup_.empty() ? "" : " (no cgroup: " + no_cgroup_ + ")"));
  if (confinement_) {
    for (const auto& held : confinement_->held) parts.push_back(held);
    for (const auto& missing : confinement_->missing) parts.push_back("without " + missing);
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

nlohmann::json WorkerProcess::go(const nlohmann::json& message, double timeout_seconds, double& seconds) {
  if (!running()) start();
  trim_log();
  // The line waits in the socket while the box is frozen; the clock starts as it is thawed.
  send_line(message.dump() + "\n");
  const auto start = Clock::now();
  thaw();
  const auto deadline = deadline_after(start, timeout_seconds);
  const auto answer = next_line(deadline, timeout_seconds);
  seconds = std::chrono::duration<double>(Clock::now() - start).count();
  freeze();  // before anything of the answer is read
  auto parsed = detail::parse_answer(answer);
  if (!parsed) fail(ProcessFailure::Kind::protocol, not_an_answer(answer));
  return *parsed;
}

void WorkerProcess::stop() {
  thaw();  // a stopped process reads no shutdown request
  if (pid_ > 0) {
    if (to_child_ >= 0) {
      const char* bye = "{\"id\":0,\"op\":\"shutdown\"}\n";
      (void)!::send(to_child_, bye, std::strlen(bye), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    close_fd(to_child_);
    int status = 0;
    bool gone = false;
    // Up to 0.5 s to leave on its own, looked at every millisecond: the bench driver renews
    // backend-host workers every few rounds, and a worker leaves in about one.
    for (int i = 0; i < 500 && !gone; ++i) {
      gone = ::waitpid(pid_, &status, WNOHANG) == pid_;
      if (!gone) ::usleep(1000);
    }
    if (!gone) {
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    } else {
      ::kill(-pid_, SIGKILL);  // anything it left behind in its group
    }
    if (freezer_) freezer_->kill_all();  // and in its cgroup, or outside its group
    forget_reaped();
  }
  freezer_.reset();
  frozen_ = false;
  close_fd(fd_channel_);
  close_fd(to_child_);
  close_fd(from_child_);
  buffer_.clear();
}

std::string WorkerProcess::log_tail(std::size_t max_bytes) const {
  struct stat st {};
  if (log_fd_ < 0 || ::fstat(log_fd_, &st) != 0) return "";
  const auto size = static_cast<std::size_t>(st.st_size);
  const auto from = size > max_bytes ? size - max_bytes : 0;
  std::string text(size - from, '\0');
  const auto n = ::pread(log_fd_, text.data(), text.size(), static_cast<off_t>(from));
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace scatter::external
