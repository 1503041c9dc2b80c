#include "engine/file_util.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace epochcost {

Result<std::string> ReadFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::NotFound(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) return Status::IoError(path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IoError(path + ": read failed");
  return text.str();
}

std::string DataFilePath(const char* env_var, const std::string& file) {
  if (const char* env = std::getenv(env_var); env && *env) return env;
  std::filesystem::path dir;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
    dir = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home)
    dir = std::filesystem::path(home) / ".local" / "share";
  else
    dir = ".";
  return (dir / "epochcost" / file).string();
}

std::string CompanionPath(const char* env_var, const std::string& file, const std::string& built) {
  if (const char* env = std::getenv(env_var); env && *env) return env;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path beside = self.parent_path() / file;
    if (std::filesystem::exists(beside, ec)) return beside.string();
  }
  return built;
}

std::string LineColumn(std::string_view text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace epochcost
