// Lines over a file descriptor (line_io.hpp).

#include "line_io.hpp"

namespace scatter::external {

bool write_line(int fd, const nlohmann::json& answer) {
  // A plugin's message may hold bytes that are not UTF-8: replace them rather than fail.
  const auto text = answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace scatter::external
