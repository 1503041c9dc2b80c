// cuBLAS is opened at run time (profiler/gpu/cublas_api.h); built only with the CUDA toolkit, and
// needs no GPU: the library loads and its calls bind on any machine with the toolkit.
#include "profiler/gpu/cublas_api.h"

#include <gtest/gtest.h>

#include <string>

namespace epochcost::profiler::cuda {
namespace {

TEST(CublasApiTest, LoadsAndBindsEveryCallWithoutAGpu) {
  Result<const CublasApi*> api = LoadCublas();
  ASSERT_TRUE(api.ok()) << api.status().message();
  EXPECT_NE((*api)->cublasCreate_v2, nullptr);
  EXPECT_NE((*api)->cublasGemmStridedBatchedEx, nullptr);
  // A call that needs no GPU: cuBLAS's text for a status (its wording varies by version).
  const std::string unsupported = Blas().cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_FALSE(unsupported.empty());
  EXPECT_NE(unsupported, Blas().cublasGetStatusString(CUBLAS_STATUS_SUCCESS));
  Result<const CublasApi*> again = LoadCublas();  // opened once, the same bindings
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *api);
}

}  // namespace
}  // namespace epochcost::profiler::cuda
