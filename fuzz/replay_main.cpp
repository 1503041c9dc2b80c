// A main for the fuzz harnesses in builds without libFuzzer: runs the harness once on each file
// named on the command line, so the seed corpora and every input a fuzzer ever crashed on
// (fuzz/regressions) are replayed by the ordinary test suite.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read\n", argv[i]);
      return 1;
    }
    const std::string data{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  }
  std::printf("replayed %d inputs\n", argc - 1);
  return 0;
}
