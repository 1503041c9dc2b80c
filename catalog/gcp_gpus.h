// GCE GPUs attach to N1 host VMs; each GPU count allows a host of at most so many vCPUs. The
// table is data/catalog/gcp-gpu-hosts.csv (SkyPilot's, from cloud.google.com/compute/docs/gpus).
#ifndef EPOCHCOST_CATALOG_GCP_GPUS_H_
#define EPOCHCOST_CATALOG_GCP_GPUS_H_

#include <string>
#include <vector>

namespace epochcost::catalog {

struct GpuHostLimit {
  std::string gpu;
  double count = 0;
  double max_vcpus = 0;
};

const std::vector<GpuHostLimit>& GcpGpuHostLimits();

}  // namespace epochcost::catalog

#endif  // EPOCHCOST_CATALOG_GCP_GPUS_H_
