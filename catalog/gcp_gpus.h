// GCE GPUs come two ways. K80, P4, P100, T4 and V100 attach to N1 host VMs, each GPU count
// allowing a host of at most so many vCPUs (data/catalog/gcp-gpu-hosts.csv). A100, L4, H100, H200
// and B200 come only inside their own machine types (a2, g2, a3, a4), which price files price
// without their GPUs, as SkyPilot's does (data/catalog/gcp-gpu-bundled.csv). Both tables are
// SkyPilot's, from cloud.google.com/compute/docs/gpus.
#ifndef EPOCHCOST_CATALOG_GCP_GPUS_H_
#define EPOCHCOST_CATALOG_GCP_GPUS_H_

#include <map>
#include <string>
#include <vector>

namespace epochcost::catalog {

struct GpuHostLimit {
  std::string gpu;
  double count = 0;
  double max_vcpus = 0;
};

const std::vector<GpuHostLimit>& GcpGpuHostLimits();

struct GpuBundle {
  std::string gpu;
  double count = 0;
  std::string instance;  // the machine type that comes with them
};

// By machine type.
const std::map<std::string, GpuBundle>& GcpGpuBundles();

}  // namespace epochcost::catalog

#endif  // EPOCHCOST_CATALOG_GCP_GPUS_H_
