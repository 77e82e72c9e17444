// The box's runtime for native code (`scatterctl box-host plugin PATH | builtin NAME`): the one
// loop that runs in a box beside a plugin or another build's built-in backend. It holds nothing
// of the judge: it maps the regions scatterctl hands it, calls the kernel between go and its
// answer, and says how long that took by its own clock, which scatterctl checks against its own.
// Requests on fd 3, answers on fd 4, descriptors on fd 5 (docs/backends.md, "The box").

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "boxed_backend.hpp"
#include "core/bounded_json.hpp"
#include "external/answers.hpp"
#include "external/line_io.hpp"
#include "external/plugin_backend.hpp"
#include "scatter/plugin.hpp"
#include "shared.hpp"

namespace scatter {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// The inputs' region of the case in hand, for the fault handler: a write into it faults (it is
// mapped read-only), and the log then says what the kernel did.
std::atomic<std::uintptr_t> inputs_begin{0}, inputs_end{0};

void on_fault(int sig, siginfo_t* info, void*) {
  const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (at >= inputs_begin.load() && at < inputs_end.load()) {
    const char text[] = "scatterctl box: the kernel wrote into its read-only input data (scatterctl's inputs are "
                        "mapped read-only in the box)\n";
    (void)!::write(STDERR_FILENO, text, sizeof text - 1);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// What scatterctl reads at the address the hello names, to learn that it can read this process's
// memory (and so the outputs at the addresses the answers name).
const char kProbe[] = "scatterctl box probe: the judge reads outputs here";

// A region scatterctl handed over, mapped for as long as its case lasts.
class Mapping {
 public:
  Mapping(int fd, bool writable) : fd_(fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size <= 0) throw Error(ErrorCode::io, "", "a region handed over is empty");
    size_ = static_cast<std::size_t>(st.st_size);
    void* at = ::mmap(nullptr, size_, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
    if (at == MAP_FAILED) throw Error(ErrorCode::io, "", fmt::format("cannot map a region: {}", std::strerror(errno)));
    bytes_ = static_cast<std::byte*>(at);
  }
  ~Mapping() {
    ::munmap(bytes_, size_);
    ::close(fd_);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  std::uintptr_t begin() const { return reinterpret_cast<std::uintptr_t>(bytes_); }
  std::uintptr_t end() const { return begin() + size_; }
  std::byte* at(std::size_t offset, std::size_t bytes) const {
    if (offset > size_ || bytes > size_ - offset) throw Error(ErrorCode::io, "", "a tensor lies outside its region");
    return bytes_ + offset;
  }

 private:
  int fd_;
  std::byte* bytes_ = nullptr;
  std::size_t size_ = 0;
};

// A tensor of the request's description, viewing a region.
Tensor view_of(const json& t, const Mapping& region) {
  const auto dtype = parse_dtype(t.at("dtype").get<std::string>());
  if (!dtype) throw Error(ErrorCode::dtype, "tensors", "an unknown dtype");
  Shape shape = t.at("shape").get<Shape>();
  const auto n = checked_numel(shape);
  if (n < 0) throw Error(ErrorCode::shape, "tensors", "a shape too large");
  const auto bytes = static_cast<std::size_t>(n) * size_of(*dtype);
  return Tensor::view(*dtype, std::move(shape), region.at(t.at("offset").get<std::size_t>(), bytes));
}

// The case of a "case" request, over the regions; its output's place in the output region.
struct BoxCase {
  std::unique_ptr<Mapping> inputs, output;
  Case c;
  RunFlags flags;
  std::byte* out = nullptr;
  bool copy_out = false;  // the output is copied into the region (scatterctl cannot read this memory)
};

// What differs between a plugin and a built-in backend in the box.
class Kernel {
 public:
  virtual ~Kernel() = default;
  /// The hello's fields (status ok), or throws Error for an unavailable kernel.
  virtual json hello() = 0;
  /// A new case, before any of its inputs are there: a plugin's supports() sees its shapes only.
  virtual void admit(BoxCase& bc) = 0;
  /// One timed call; the answer's fields beyond status and seconds.
  virtual json call(BoxCase& bc) = 0;
};

class PluginKernel final : public Kernel {
 public:
  explicit PluginKernel(std::string path) : path_(std::move(path)) {}

  json hello() override {
    plugin_ = std::make_unique<detail::PluginBackend>(path_);
    const auto availability = plugin_->availability();
    if (!availability.available) throw Error(ErrorCode::backend, "", availability.reason);
    if (plugin_->traits().memory != MemoryKind::host) {
      throw Error(ErrorCode::backend, "",
                  "a plugin on device tensors (SP_MEMORY_CUDA) does not run in the box yet: the box gives host "
                  "memory only; run it with SCATTERCTL_BOX=off (its host uploads the tensors) or --in-process");
    }
    json answer = {{"name", std::string(plugin_->name())},
                   {"version", plugin_->version()},
                   {"versions", {{"plugin", plugin_->version()}}},
                   {"device", plugin_->device()},
                   {"threads", 1},
                   {"output", "region"}};
    if (const auto caps = plugin_->capabilities_json(); !caps.empty()) {
      answer["capabilities"] = detail::parse_bounded(caps, "the plugin's capabilities");
    }
    return answer;
  }

  void admit(BoxCase& bc) override { plugin_->ask_supports(detail::ShapesOnly(bc.c, bc.flags).get()); }

  json call(BoxCase& bc) override {
    detail::View data(bc.c.data, bc.flags.in_place ? bc.out : bc.c.data.bytes());
    detail::View indices(bc.c.indices, bc.c.indices.bytes()), updates(bc.c.updates, bc.c.updates.bytes());
    detail::View out(bc.c.data, bc.out);
    plugin_->throw_for(plugin_->call_run(detail::case_of(bc.c, bc.flags, data, indices, updates, out, nullptr)));
    return json::object();
  }

 private:
  std::string path_;
  std::unique_ptr<detail::PluginBackend> plugin_;
};

class BuiltinKernel final : public Kernel {
 public:
  BuiltinKernel(std::string name, int threads) : name_(std::move(name)), threads_(threads) {}

  json hello() override {
    BackendConfig config;
    config.threads = threads_;
    backend_ = make_backend(name_, config);
    const auto availability = backend_->availability();
    if (!availability.available) throw Error(ErrorCode::backend, "", availability.reason);
    return {{"name", name_},
            {"version", ""},
            {"device", backend_->device()},
            {"threads", backend_->traits().threads},
            {"output", "address"},
            {"probe", {{"address", reinterpret_cast<std::uintptr_t>(kProbe)}, {"text", std::string(kProbe)}}}};
  }

  void admit(BoxCase&) override {}

  json call(BoxCase& bc) override {
    last_ = backend_->run(bc.c, bc.flags).output;  // kept until the next call: scatterctl reads it frozen
    if (bc.copy_out) {
      std::memcpy(bc.out, last_.bytes(), last_.nbytes());
      return json::object();
    }
    return {{"out", {{"address", reinterpret_cast<std::uintptr_t>(last_.bytes())}, {"bytes", last_.nbytes()}}}};
  }

 private:
  std::string name_;
  int threads_;
  std::unique_ptr<Backend> backend_;
  Tensor last_;
};

Case case_of(const json& request, const Mapping& inputs) {
  const auto& decl = request.at("case");
  Case c;
  c.name = decl.value("name", std::string());
  const auto op = parse_op(decl.at("op").get<std::string>());
  const auto reduction = parse_reduction(decl.value("reduction", std::string("none")));
  if (!op || !reduction) throw Error(ErrorCode::op, "case", "an unknown op or reduction");
  c.attrs.op = *op;
  c.attrs.reduction = *reduction;
  c.attrs.axis = decl.value("axis", std::int64_t{0});
  c.attrs.use_init_val = decl.value("use_init_val", true);
  c.attrs.mode = decl.value("mode", std::string("linear")) == "circular" ? WriteMode::circular : WriteMode::linear;
  const auto& tensors = request.at("tensors");
  c.data = view_of(tensors.at("data"), inputs);
  c.indices = view_of(tensors.at("indices"), inputs);
  c.updates = view_of(tensors.at("updates"), inputs);
  return c;
}

int serve(Kernel& kernel) {
  ::signal(SIGPIPE, SIG_IGN);
  struct sigaction fault {};
  fault.sa_sigaction = on_fault;
  fault.sa_flags = SA_SIGINFO;
  sigemptyset(&fault.sa_mask);
  ::sigaction(SIGSEGV, &fault, nullptr);
  ::sigaction(SIGBUS, &fault, nullptr);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);  // a plugin's prints go to the log, never the channel
  external::LineReader reader(3);
  std::optional<BoxCase> current;
  bool loaded = false;
  for (std::string line; reader.next(line);) {
    const auto request = detail::parse_answer(line).value_or(json::object());
    const auto id = request.value("id", json());
    const auto op = request.value("op", std::string());
    json answer = {{"id", id}, {"status", "ok"}};
    if (op == "shutdown") return 0;
    try {
      if (op == "go") {
        if (!current) throw Error(ErrorCode::backend, "", "go before any case");
        const auto start = Clock::now();
        auto fields = kernel.call(*current);
        const std::chrono::duration<double> took = Clock::now() - start;
        answer.update(fields);
        answer["seconds"] = std::max(took.count(), 1e-9);
      } else if (op == "null") {
        // nothing: the path's own cost
      } else if (op == "hello") {
        answer.update(kernel.hello());
        answer["protocol"] = box::kBoxProtocol;
        loaded = true;
      } else if (op == "case") {
        if (!loaded) throw Error(ErrorCode::backend, "", "a case before hello");
        current.reset();
        int fds[2] = {-1, -1};
        if (box::receive_fds(5, fds, 2) != 2) throw Error(ErrorCode::io, "", "the case's regions did not arrive");
        BoxCase bc;
        bc.inputs = std::make_unique<Mapping>(fds[0], false);
        bc.output = std::make_unique<Mapping>(fds[1], true);
        inputs_begin = bc.inputs->begin();
        inputs_end = bc.inputs->end();
        bc.c = case_of(request, *bc.inputs);
        const auto& flags = request.value("flags", json::object());
        bc.flags.in_place = flags.value("in_place", false);
        bc.flags.deterministic = flags.value("deterministic", false);
        const auto& out = request.at("out");
        bc.out = bc.output->at(out.at("offset").get<std::size_t>(), out.at("bytes").get<std::size_t>());
        bc.copy_out = out.value("way", std::string()) == "copy";
        kernel.admit(bc);
        current.emplace(std::move(bc));
      } else {
        throw Error(ErrorCode::backend, "", fmt::format("unknown op '{}'", op.substr(0, 40)));
      }
    } catch (...) {
      answer = external::answer_of_exception(id, "malformed request: ");
      if (op == "hello") {  // a kernel that cannot load makes the backend unavailable, saying why
        answer["status"] = "unavailable";
        answer["reason"] = answer["message"];
      }
    }
    if (!external::write_line(4, answer)) return 1;
  }
  return 0;
}

}  // namespace

int serve_plugin_box(const std::string& path) {
  PluginKernel kernel(path);
  return serve(kernel);
}

int serve_builtin_box(const std::string& name, int threads) {
  BuiltinKernel kernel(name, threads);
  return serve(kernel);
}

}  // namespace scatter
