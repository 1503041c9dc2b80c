// Where epochcost finds the programs and libraries it runs beside itself.
#include "engine/file_util.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

namespace epochcost {
namespace {

TEST(CompanionPathTest, EnvironmentThenBesideTheExecutableThenTheBuild) {
  unsetenv("EPOCHCOST_TEST_COMPANION");
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  // This test program itself is beside the running executable.
  EXPECT_EQ(CompanionPath("EPOCHCOST_TEST_COMPANION", self.filename().string(), "/built/x"),
            self.string());
  EXPECT_EQ(CompanionPath("EPOCHCOST_TEST_COMPANION", "no-such-companion", "/built/x"), "/built/x");
  EXPECT_EQ(CompanionPath("EPOCHCOST_TEST_COMPANION", "no-such-companion", ""), "");
  setenv("EPOCHCOST_TEST_COMPANION", "/elsewhere/y", 1);
  EXPECT_EQ(CompanionPath("EPOCHCOST_TEST_COMPANION", self.filename().string(), "/built/x"),
            "/elsewhere/y");
  setenv("EPOCHCOST_TEST_COMPANION", "", 1);  // empty: as if unset
  EXPECT_EQ(CompanionPath("EPOCHCOST_TEST_COMPANION", "no-such-companion", "/built/x"), "/built/x");
  unsetenv("EPOCHCOST_TEST_COMPANION");
}

}  // namespace
}  // namespace epochcost
