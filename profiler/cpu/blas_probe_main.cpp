// epochcost-blas-probe: times one aten=1 inner product in a process of its own
// (profiler/cpu/blas_probe.h says why). The CPU profiler runs it; it is not meant to be run by
// hand.
#include "profiler/cpu/blas_probe.h"

int main(int argc, char** argv) { return epochcost::profiler::BlasProbeMain(argc, argv); }
