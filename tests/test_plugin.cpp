// Native plugins: the example plugin against the reference, each broken test plugin
// (tests/plugins/) against the guard that catches it, and the isolated host's side of
// worker protocol 1 in a forked child.

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scatter/backend.hpp"
#include "scatter/load.hpp"
#include "scatter/plugin.hpp"
#include "test_util.hpp"

namespace scatter {
namespace {

using nlohmann::json;
using testing::load_case;

const std::string kExample = SCATTER_EXAMPLE_PLUGIN;

std::string test_plugin(const std::string& name) {
  return std::string(SCATTER_TEST_PLUGINS) + "/" + name + SCATTER_PLUGIN_SUFFIX;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.nbytes() == 0 || std::memcmp(a.bytes(), b.bytes(), a.nbytes()) == 0);
}

// The message of the exception `statement` throws, which must be of `type`.
#define EXPECT_THROW_WITH(statement, type, needle)                                 \
  do {                                                                             \
    try {                                                                          \
      statement;                                                                   \
      ADD_FAILURE() << "no exception thrown";                                      \
    } catch (const type& e) {                                                      \
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what(); \
    }                                                                              \
  } while (0)

// A rank-1 float32 case, the one the broken plugins implement: out = [5, 6, 3, 4].
const char* kSmallCase = R"({"name": "small", "op": "scatter_elements",
  "inputs": {"data": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]},
             "indices": {"dtype": "int64", "shape": [2], "values": [0, -3]},
             "updates": {"dtype": "float32", "shape": [2], "values": [5, 6]}}})";

// Cases the example plugin supports, each compared with the reference bit for bit
// (both apply duplicates in row-major order).
const std::vector<std::string> kExampleCases = {
    R"({"name": "elements_add_axis1", "op": "scatter_elements", "axis": 1, "reduction": "add",
        "inputs": {"data": {"dtype": "float32", "shape": [2, 3], "values": [[1, 2, 3], [4, 5, 6]]},
                   "indices": {"dtype": "int64", "shape": [2, 2], "values": [[0, -1], [2, 2]]},
                   "updates": {"dtype": "float32", "shape": [2, 2], "values": [[0.5, 0.25], [10, 20]]}}})",
    R"({"name": "elements_none_axis0", "op": "scatter_elements", "axis": 0,
        "inputs": {"data": {"dtype": "int64", "shape": [3, 2], "generate": {"kind": "arange"}},
                   "indices": {"dtype": "int32", "shape": [2, 2], "values": [[2, 0], [-1, 1]]},
                   "updates": {"dtype": "int64", "shape": [2, 2], "values": [[-7, 8], [9, -10]]}}})",
    R"({"name": "elements_mul_random", "op": "scatter_elements", "axis": -1, "reduction": "mul",
        "inputs": {"data": {"dtype": "float64", "shape": [4, 5, 6], "generate": {"kind": "uniform", "low": -2, "high": 2, "seed": 1}},
                   "indices": {"dtype": "int64", "shape": [4, 5, 3], "generate": {"kind": "indices", "negative": 0.3, "seed": 2}},
                   "updates": {"dtype": "float64", "shape": [4, 5, 3], "generate": {"kind": "uniform", "low": -2, "high": 2, "seed": 3}}}})",
    R"({"name": "elements_min_int32", "op": "scatter_elements", "reduction": "min",
        "inputs": {"data": {"dtype": "int32", "shape": [5], "values": [3, -1, 7, 0, 2147483647]},
                   "indices": {"dtype": "int64", "shape": [6], "values": [0, 0, 2, -1, 4, 3]},
                   "updates": {"dtype": "int32", "shape": [6], "values": [5, -4, 7, -2147483648, 9, 1]}}})",
    R"({"name": "elements_add_int32_wraps", "op": "scatter_elements", "reduction": "add",
        "inputs": {"data": {"dtype": "int32", "shape": [2], "values": [2147483647, -2147483648]},
                   "indices": {"dtype": "int32", "shape": [2], "values": [0, 1]},
                   "updates": {"dtype": "int32", "shape": [2], "values": [1, -1]}}})",
    R"({"name": "nd_add_slices", "op": "scatter_nd", "reduction": "add",
        "inputs": {"data": {"dtype": "float32", "shape": [4, 3], "generate": {"kind": "arange"}},
                   "indices": {"dtype": "int64", "shape": [3, 1], "values": [[1], [-1], [1]]},
                   "updates": {"dtype": "float32", "shape": [3, 3], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 4}}}})",
    R"({"name": "nd_max_elements", "op": "scatter_nd", "reduction": "max",
        "inputs": {"data": {"dtype": "int64", "shape": [3, 4], "generate": {"kind": "randint", "low": -50, "high": 50, "seed": 5}},
                   "indices": {"dtype": "int32", "shape": [8, 2], "generate": {"kind": "indices", "negative": 0.5, "seed": 6}},
                   "updates": {"dtype": "int64", "shape": [8], "generate": {"kind": "randint", "low": -50, "high": 50, "seed": 7}}}})",
    R"({"name": "nd_mul_empty_tuple", "op": "scatter_nd", "reduction": "mul",
        "inputs": {"data": {"dtype": "float64", "shape": [2, 2], "values": [[1, 2], [3, 4]]},
                   "indices": {"dtype": "int64", "shape": [2, 0], "values": [[], []]},
                   "updates": {"dtype": "float64", "shape": [2, 2, 2], "values": [[[2, 2], [2, 2]], [[0.5, 3], [-1, 1]]]}}})",
    R"({"name": "update_axis1", "op": "scatter_update", "axis": 1,
        "inputs": {"data": {"dtype": "float32", "shape": [2, 4], "generate": {"kind": "arange"}},
                   "indices": {"dtype": "int64", "shape": [2], "values": [3, 0]},
                   "updates": {"dtype": "float32", "shape": [2, 2], "values": [[-1, -2], [-3, -4]]}}})",
};

TEST(PluginExample, LoadsAndDescribesItself) {
  const auto backend = make_plugin_backend(kExample);
  const auto availability = backend->availability();
  ASSERT_TRUE(availability.available) << availability.reason;
  EXPECT_EQ(backend->name(), "plugin:" + kExample);
  EXPECT_EQ(backend->version(), "1.0.0");
  EXPECT_EQ(backend->device(), "CPU (plugin example 1.0.0)");
  EXPECT_TRUE(backend->is_external());
  const Capabilities* caps = backend->capabilities();
  ASSERT_NE(caps, nullptr);
  const auto& add = caps->ops[static_cast<int>(Op::scatter_elements)][static_cast<int>(Reduction::add)];
  EXPECT_TRUE(add.supported);
  EXPECT_FALSE(add.all_dtypes);
  EXPECT_EQ(add.dtypes, (std::vector<DType>{DType::float32, DType::float64, DType::int32, DType::int64}));
  EXPECT_FALSE(caps->ops[static_cast<int>(Op::scatter_nd)][static_cast<int>(Reduction::sub)].supported);
  EXPECT_FALSE(caps->ops[static_cast<int>(Op::scatter_elements)][static_cast<int>(Reduction::mean)].supported);
  EXPECT_TRUE(caps->ops[static_cast<int>(Op::scatter_update)][static_cast<int>(Reduction::none)].supported);
  EXPECT_FALSE(caps->use_init_val_false);
  for (const auto op : scatter::kOps) EXPECT_TRUE(caps->checks_indices[static_cast<std::size_t>(op)]);
}

TEST(PluginExample, MatchesTheReferenceOutOfPlaceAndInPlace) {
  const auto backend = make_plugin_backend(kExample);
  ASSERT_TRUE(backend->availability().available) << backend->availability().reason;
  for (const auto& json_text : kExampleCases) {
    const Case c = load_case(json_text);
    const Tensor want = reference_scatter(c);
    for (const bool in_place : {false, true}) {
      SCOPED_TRACE(c.name + (in_place ? " in place" : " out of place"));
      RunFlags flags;
      flags.in_place = in_place;
      const auto got = backend->run(c, flags);
      EXPECT_TRUE(same_bytes(got.output, want));
      EXPECT_GE(got.seconds, 0.0);
      EXPECT_EQ(got.timing, "steady_clock around run() (host)");
    }
  }
}

// Expected values by hand: NaN wins both ways, -0 < +0, and an update equal to the
// element keeps the element's bits.
TEST(PluginExample, MinMaxFollowIeee754_2019) {
  const auto backend = make_plugin_backend(kExample);
  const Case lo = load_case(R"({"name": "min", "op": "scatter_elements", "reduction": "min",
      "inputs": {"data": {"dtype": "float32", "shape": [4], "values": [0.0, -0.0, "nan", 1]},
                 "indices": {"dtype": "int64", "shape": [4], "values": [0, 1, 2, 3]},
                 "updates": {"dtype": "float32", "shape": [4], "values": [-0.0, 0.0, 5, "nan"]}}})");
  const auto min = backend->run(lo).output;
  const float* m = min.data<float>();
  EXPECT_TRUE(m[0] == 0.0f && std::signbit(m[0]));
  EXPECT_TRUE(m[1] == 0.0f && std::signbit(m[1]));
  EXPECT_TRUE(std::isnan(m[2]));
  EXPECT_TRUE(std::isnan(m[3]));

  const Case hi = load_case(R"({"name": "max", "op": "scatter_nd", "reduction": "max",
      "inputs": {"data": {"dtype": "float64", "shape": [3], "values": [0.0, -0.0, 2]},
                 "indices": {"dtype": "int64", "shape": [3, 1], "values": [[0], [1], [2]]},
                 "updates": {"dtype": "float64", "shape": [3], "values": [-0.0, 0.0, "inf"]}}})");
  const auto max = backend->run(hi).output;
  const double* x = max.data<double>();
  EXPECT_TRUE(x[0] == 0.0 && !std::signbit(x[0]));
  EXPECT_TRUE(x[1] == 0.0 && !std::signbit(x[1]));
  EXPECT_TRUE(std::isinf(x[2]) && x[2] > 0);
}

TEST(PluginExample, RejectsAnOutOfRangeIndexWithCodeIndex) {
  const auto backend = make_plugin_backend(kExample);
  Case c = load_case(kSmallCase);
  c.indices.data<std::int64_t>()[1] = 7;  // valid range [-4, 3]
  try {
    backend->run(c);
    ADD_FAILURE() << "an out-of-range index was accepted";
  } catch (const Rejected& e) {
    EXPECT_EQ(e.code(), "index");
    EXPECT_EQ(std::string(e.what()), "indices element 1 = 7 is out of range [-4, 3] for a dimension of 4");
  }
  c.indices.data<std::int64_t>()[1] = -5;
  EXPECT_THROW_WITH(backend->run(c), Rejected, "= -5 is out of range [-4, 3]");
}

TEST(PluginExample, DeclinesWhatItDoesNotImplementThroughSupports) {
  const auto backend = make_plugin_backend(kExample);
  const Case half = load_case(R"({"name": "half", "op": "scatter_elements",
      "inputs": {"data": {"dtype": "float16", "shape": [2], "values": [1, 2]},
                 "indices": {"dtype": "int64", "shape": [1], "values": [0]},
                 "updates": {"dtype": "float16", "shape": [1], "values": [3]}}})");
  EXPECT_THROW_WITH(backend->run(half), Unsupported, "float32, float64, int32 and int64 data only");
  const Case no_init = load_case(R"({"name": "no_init", "op": "scatter_elements", "reduction": "add", "use_init_val": false,
      "inputs": {"data": {"dtype": "float32", "shape": [2], "values": [1, 2]},
                 "indices": {"dtype": "int64", "shape": [1], "values": [0]},
                 "updates": {"dtype": "float32", "shape": [1], "values": [3]}}})");
  EXPECT_THROW_WITH(backend->run(no_init), Unsupported, "use_init_val = false is not implemented");
}

TEST(PluginBroken, WrongAnswerDiffersFromTheReferenceInOneElement) {
  const auto backend = make_plugin_backend(test_plugin("wrong_answer"));
  ASSERT_TRUE(backend->availability().available) << backend->availability().reason;
  const Case c = load_case(kSmallCase);
  const auto got = backend->run(c).output;
  const Tensor want = reference_scatter(c);
  EXPECT_FALSE(same_bytes(got, want));
  EXPECT_EQ(got.data<float>()[0], 6.0f);  // the reference's 5, plus 1
  for (int i = 1; i < 4; ++i) EXPECT_EQ(got.data<float>()[i], want.data<float>()[i]) << i;
}

TEST(PluginBroken, UnsupportedThrowsTheReasonFromSupports) {
  const auto backend = make_plugin_backend(test_plugin("unsupported"));
  ASSERT_TRUE(backend->availability().available) << backend->availability().reason;
  try {
    backend->run(load_case(kSmallCase));
    ADD_FAILURE() << "no exception thrown";
  } catch (const Unsupported& e) {
    EXPECT_EQ(std::string(e.what()), "the unsupported test plugin supports nothing");
  }
}

TEST(PluginBroken, LiarIsABackendError) {
  const auto backend = make_plugin_backend(test_plugin("liar"));
  ASSERT_TRUE(backend->availability().available) << backend->availability().reason;
  const auto e = testing::thrown([&] { backend->run(load_case(kSmallCase)); });
  EXPECT_EQ(e.code(), ErrorCode::backend);
  EXPECT_EQ(e.message(), "plugin liar accepted the case in supports() but run() returned SP_UNSUPPORTED: changed its mind");
}

void expect_unavailable(const std::string& path, const std::string& reason) {
  const auto backend = make_plugin_backend(path);
  const auto availability = backend->availability();
  EXPECT_FALSE(availability.available);
  EXPECT_NE(availability.reason.find(reason), std::string::npos) << availability.reason;
  EXPECT_NE(availability.reason.find(path), std::string::npos) << "the reason names no path: " << availability.reason;
  EXPECT_EQ(backend->capabilities(), nullptr);
  try {
    backend->run(load_case(kSmallCase));
    ADD_FAILURE() << "an unavailable plugin ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::backend);
    EXPECT_NE(e.message().find(reason), std::string::npos) << e.message();
  }
}

TEST(PluginBroken, AbiMismatchIsUnavailable) {
  expect_unavailable(test_plugin("abi_mismatch"), "is built for ABI 2.0, scatterctl speaks 1.1");
}

TEST(PluginAbi, A10TableLoadsUnchangedWithHostTensors) {
  const auto backend = make_plugin_backend(test_plugin("abi10"));
  ASSERT_TRUE(backend->availability().available) << backend->availability().reason;
  EXPECT_EQ(backend->traits().memory, MemoryKind::host);
  const Case c = load_case(kSmallCase);
  const auto out = backend->run(c);
  EXPECT_EQ(std::memcmp(out.output.bytes(), reference_scatter(c).bytes(), c.data.nbytes()), 0);
}

TEST(PluginAbi, DeviceTensorsWithoutAGpuAreUnavailableWithTheReason) {
  const auto backend = make_plugin_backend(test_plugin("device_tensors"));
  if (backend->availability().available) GTEST_SKIP() << "a GPU is here: the device path runs (docs/backends.md)";
  EXPECT_NE(backend->availability().reason.find("takes its tensors on a GPU (SP_MEMORY_CUDA), and there is none here: "),
            std::string::npos)
      << backend->availability().reason;
}

TEST(PluginBroken, NullTableIsUnavailable) {
  expect_unavailable(test_plugin("null_api"), "scatter_plugin_get_api(1, 1) returned NULL");
}

TEST(PluginBroken, NoEntryPointIsUnavailable) {
  expect_unavailable(test_plugin("no_entry"), "exports no scatter_plugin_get_api");
}

TEST(PluginBroken, MissingFileIsUnavailableWithDlerror) {
  const auto path = test_plugin("does_not_exist");
  expect_unavailable(path, "cannot load plugin '" + path + "': ");
  expect_unavailable(path, "No such file");
}

TEST(PluginBroken, BadCapabilitiesIsUnavailable) {
  expect_unavailable(test_plugin("bad_capabilities"), "declares invalid capabilities: ");
}

TEST(PluginBroken, InputWriterIsCaught) {
  const auto backend = make_plugin_backend(test_plugin("input_writer"));
  const Case c = load_case(kSmallCase);
  try {
    backend->run(c);
    ADD_FAILURE() << "a plugin that wrote into data passed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::backend);
    EXPECT_EQ(e.message(), "plugin input_writer modified its input data");
  }
}

TEST(PluginBroken, OverrunIsCaught) {
  const auto backend = make_plugin_backend(test_plugin("overrun"));
  try {
    backend->run(load_case(kSmallCase));
    ADD_FAILURE() << "a plugin that wrote past out passed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::backend);
    EXPECT_EQ(e.message(), "plugin overrun wrote past the end of out");
  }
}

// Their run() is only safe in a child: here they load, and PluginHost runs them.
TEST(PluginBroken, CrashAndHangLoad) {
  for (const auto* name : {"crash", "hang"}) {
    const auto backend = make_plugin_backend(test_plugin(name));
    EXPECT_TRUE(backend->availability().available) << name << ": " << backend->availability().reason;
  }
}

// serve_plugin in a forked child, spoken to over two pipes as scatterctl will.
class HostChild {
 public:
  explicit HostChild(const std::string& plugin)
      : HostChild([plugin](int in, int out) { return serve_plugin(plugin, in, out); }) {}
  // `serve(fd_in, fd_out)` in the child: serve_plugin or serve_backend.
  explicit HostChild(const std::function<int(int, int)>& serve) {
    int requests[2];
    int answers[2];
    if (::pipe(requests) != 0 || ::pipe(answers) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(requests[1]);
      ::close(answers[0]);
      int rc = 99;
      try {
        rc = serve(requests[0], answers[1]);
      } catch (...) {
      }
      ::_exit(rc);
    }
    ::close(requests[0]);
    ::close(answers[1]);
    to_ = requests[1];
    from_ = answers[0];
  }
  ~HostChild() {
    if (to_ >= 0) ::close(to_);
    ::close(from_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  HostChild(const HostChild&) = delete;
  HostChild& operator=(const HostChild&) = delete;

  void send(const json& request) { send_line(request.dump()); }
  void send_line(const std::string& text) {
    const auto line = text + "\n";
    ASSERT_EQ(::write(to_, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  }
  // The next answer; nullopt when the child closed its end or said nothing for timeout_ms.
  std::optional<json> receive(int timeout_ms = 10000) {
    for (;;) {
      const auto newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        const auto line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return json::parse(line);
      }
      pollfd p{from_, POLLIN, 0};
      if (::poll(&p, 1, timeout_ms) <= 0) return std::nullopt;
      char chunk[4096];
      const auto n = ::read(from_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  // The child's wait status once it has exited.
  int wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }
  bool running() { return ::waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
  int to_ = -1;
  int from_ = -1;
  std::string buffer_;
};

// The inputs of a case as .npy files, and the run request for them.
class RunFiles {
 public:
  RunFiles() {
    char dir[] = "/tmp/scatter-plugin-test-XXXXXX";
    if (::mkdtemp(dir) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = dir;
  }
  ~RunFiles() { std::filesystem::remove_all(dir_); }

  json request(int id, const Case& c, const std::string& op, const std::string& reduction) {
    write_npy(c.data, dir_ + "/data.npy");
    write_npy(c.indices, dir_ + "/indices.npy");
    write_npy(c.updates, dir_ + "/updates.npy");
    return {{"id", id},
            {"op", "run"},
            {"case", {{"name", c.name}, {"op", op}, {"reduction", reduction}, {"axis", c.attrs.axis}, {"use_init_val", true}}},
            {"data", dir_ + "/data.npy"},
            {"indices", dir_ + "/indices.npy"},
            {"updates", dir_ + "/updates.npy"},
            {"out", out()},
            {"flags", {{"in_place", false}, {"deterministic", false}}}};
  }
  std::string out() const { return dir_ + "/out.npy"; }

 private:
  std::string dir_;
};

TEST(PluginHost, ServesHelloRunAndShutdownForTheExample) {
  HostChild child(kExample);
  child.send({{"id", 1}, {"op", "hello"}, {"protocol", 1}, {"backend", "plugin:" + kExample}});
  const auto hello = child.receive();
  ASSERT_TRUE(hello.has_value());
  EXPECT_EQ(hello->at("id"), 1);
  ASSERT_EQ(hello->at("status"), "ok") << hello->dump();
  EXPECT_EQ(hello->at("protocol"), 1);
  EXPECT_EQ(hello->at("name"), "plugin:" + kExample);
  EXPECT_EQ(hello->at("version"), "1.0.0");
  EXPECT_EQ(hello->at("versions"), json({{"plugin", "1.0.0"}}));
  EXPECT_EQ(hello->at("device"), "CPU (plugin example 1.0.0)");
  EXPECT_EQ(hello->at("capabilities").at("ops").at("scatter_update"),
            json::parse(R"({"none": ["float32", "float64", "int32", "int64"]})"));

  RunFiles files;
  const Case c = load_case(kExampleCases[0]);
  child.send(files.request(2, c, "scatter_elements", "add"));
  const auto ran = child.receive();
  ASSERT_TRUE(ran.has_value());
  EXPECT_EQ(ran->at("id"), 2);
  ASSERT_EQ(ran->at("status"), "ok") << ran->dump();
  EXPECT_GE(ran->at("seconds").get<double>(), 0.0);
  EXPECT_EQ(ran->at("timing"), "steady_clock around run() (host)");
  EXPECT_TRUE(same_bytes(read_npy(files.out()), reference_scatter(c)));

  Case bad = load_case(kSmallCase);
  bad.indices.data<std::int64_t>()[0] = 4;
  child.send(files.request(3, bad, "scatter_elements", "none"));
  const auto rejected = child.receive();
  ASSERT_TRUE(rejected.has_value());
  EXPECT_EQ(rejected->at("status"), "rejected") << rejected->dump();
  EXPECT_EQ(rejected->at("code"), "index");
  EXPECT_EQ(rejected->at("message"), "indices element 0 = 4 is out of range [-4, 3] for a dimension of 4");

  const Case half = load_case(R"({"name": "half", "op": "scatter_elements",
      "inputs": {"data": {"dtype": "float16", "shape": [2], "values": [1, 2]},
                 "indices": {"dtype": "int64", "shape": [1], "values": [0]},
                 "updates": {"dtype": "float16", "shape": [1], "values": [3]}}})");
  child.send(files.request(4, half, "scatter_elements", "none"));
  const auto unsupported = child.receive();
  ASSERT_TRUE(unsupported.has_value());
  EXPECT_EQ(unsupported->at("status"), "unsupported") << unsupported->dump();

  child.send({{"id", 5}, {"op", "shutdown"}});
  EXPECT_FALSE(child.receive().has_value());  // no answer: the channel closes
  const int status = child.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(PluginHost, AnswersUnavailableForABrokenPlugin) {
  HostChild child(test_plugin("no_entry"));
  child.send({{"id", 1}, {"op", "hello"}, {"protocol", 1}, {"backend", "plugin"}});
  const auto hello = child.receive();
  ASSERT_TRUE(hello.has_value());
  EXPECT_EQ(hello->at("status"), "unavailable");
  EXPECT_NE(hello->at("reason").get<std::string>().find("exports no scatter_plugin_get_api"), std::string::npos);
}

TEST(PluginHost, AnswersAnErrorForAMalformedRequest) {
  HostChild child(kExample);
  child.send_line("{not json");
  const auto garbage = child.receive();
  ASSERT_TRUE(garbage.has_value());
  EXPECT_TRUE(garbage->at("id").is_null());
  EXPECT_EQ(garbage->at("status"), "error");
  EXPECT_EQ(garbage->at("message").get<std::string>().rfind("malformed request: ", 0), 0u) << garbage->dump();
  child.send({{"id", 7}, {"op", "dance"}});
  const auto unknown = child.receive();
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown->at("id"), 7);
  EXPECT_EQ(unknown->at("status"), "error");
  EXPECT_EQ(unknown->at("message"), "unknown op 'dance'");
}

// bench's later samples of a case say same_inputs: backend-host runs the case it kept and does
// not read the files again; without it, or with another case, it reads them. A plugin's host
// reads them every time.
TEST(PluginHost, SameInputsRunsTheKeptCaseWithoutReadingTheFilesAgain) {
  HostChild child([](int in, int out) {
    auto ref = make_backend("ref", BackendConfig{});
    return serve_backend(*ref, "", in, out, KeepCase::yes);
  });
  RunFiles files;
  const Case first = load_case(kSmallCase);
  Case second = load_case(kSmallCase);
  second.updates.data<float>()[0] = 7;
  second.updates.data<float>()[1] = 8;
  const auto output_of = [&](json request, bool same_inputs) {
    request["same_inputs"] = same_inputs;
    child.send(request);
    const auto answer = child.receive();
    EXPECT_TRUE(answer.has_value() && answer->at("status") == "ok") << (answer ? answer->dump() : "no answer");
    return read_npy(files.out());
  };
  EXPECT_TRUE(same_bytes(output_of(files.request(1, first, "scatter_elements", "none"), false), reference_scatter(first)));
  // The files now hold the second case's updates; the request names the same files.
  EXPECT_TRUE(same_bytes(output_of(files.request(2, second, "scatter_elements", "none"), true), reference_scatter(first)));
  EXPECT_TRUE(same_bytes(output_of(files.request(3, second, "scatter_elements", "none"), false), reference_scatter(second)));
  auto other_case = files.request(4, first, "scatter_elements", "none");
  other_case["case"]["name"] = "renamed";
  EXPECT_TRUE(same_bytes(output_of(other_case, true), reference_scatter(first)));

  HostChild plugin(kExample);
  const auto plugin_output_of = [&](json request) {
    request["same_inputs"] = true;
    plugin.send(request);
    const auto answer = plugin.receive();
    EXPECT_TRUE(answer.has_value() && answer->at("status") == "ok") << (answer ? answer->dump() : "no answer");
    return read_npy(files.out());
  };
  EXPECT_TRUE(same_bytes(plugin_output_of(files.request(5, first, "scatter_elements", "none")), reference_scatter(first)));
  EXPECT_TRUE(same_bytes(plugin_output_of(files.request(6, second, "scatter_elements", "none")), reference_scatter(second)))
      << "a plugin's host kept its case";
}

TEST(PluginHost, ACrashingPluginTakesOnlyTheChildDown) {
  HostChild child(test_plugin("crash"));
  RunFiles files;
  child.send(files.request(1, load_case(kSmallCase), "scatter_elements", "none"));
  EXPECT_FALSE(child.receive().has_value());
  const int status = child.wait();
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGSEGV);
}

TEST(PluginHost, AHangingPluginNeverAnswers) {
  HostChild child(test_plugin("hang"));
  RunFiles files;
  child.send(files.request(1, load_case(kSmallCase), "scatter_elements", "none"));
  EXPECT_FALSE(child.receive(300).has_value());
  EXPECT_TRUE(child.running());
}

}  // namespace
}  // namespace scatter
