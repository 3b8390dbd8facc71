// Copyright (c) the popart-runtime authors.
// Shared by the CLI tests: runs the `popart` command line and finds the zoo's models.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace popart {
namespace cli_test {

inline std::string zooModel(const std::string& name) {
  const char* env = std::getenv("POPART_ZOO_DIR");
  return std::string(env ? env : POPART_ZOO_DIR) + "/" + name + ".onnx";
}

struct Result {
  int status = -1;     // the exit status; -1 when the process did not exit normally (a crash)
  std::string out;     // stdout
  std::string err;     // stderr
  std::string output;  // stdout, then stderr
};

/// Runs `popart ARGS` (ARGS shell-quoted by the caller) in `cwd`.
inline Result runCli(const std::string& args, const std::string& cwd = ".") {
  namespace fs = std::filesystem;
  fs::create_directories(POPART_TEST_TMPDIR);
  // One file per process: ctest runs the tests in parallel, each in its own process.
  const std::string errPath =
      (fs::path(POPART_TEST_TMPDIR) / ("cli_stderr_" + std::to_string(getpid()) + ".txt")).string();
  const std::string cmd = "cd '" + cwd + "' && '" + std::string(POPART_CLI) + "' " + args + " 2>'" + errPath + "'";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream f(errPath);
  r.err.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  r.output = r.out + r.err;
  return r;
}

}  // namespace cli_test
}  // namespace popart
