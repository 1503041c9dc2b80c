// What hardware an instance type has beyond what its price file says, from tables of
// instance-name patterns compiled from data/catalog ('*' matches any run of characters; the first
// matching row wins; each row names its source):
// - cpu-families.csv: the CPU family (a row of data/hardware/cpus.csv) of an instance family;
// - gpu-models.csv: the GPU model (a row of data/hardware/gpus.csv) where the provider's GPU name
//   covers several parts: SkyPilot names Lambda's gpu_1x_h100_pcie's card "H100", the name that
//   stands for the SXM5 part, which runs ResNet50 about 1.5x faster (@lambda-resnet50).
#ifndef EPOCHCOST_CATALOG_HARDWARE_PATTERNS_H_
#define EPOCHCOST_CATALOG_HARDWARE_PATTERNS_H_

#include <string>
#include <string_view>

#include "catalog/records.h"

namespace epochcost::catalog {

// Whether `name` matches `pattern`, where '*' stands for any run of characters.
bool Glob(std::string_view pattern, std::string_view name);

// The CPU family of an instance type, or "" where no row matches.
std::string CpuFamilyOf(const InstanceType& i);

// The GPU model of an instance type's GPUs, or "" where no row matches (the catalog's `gpu`
// name then identifies the model).
std::string GpuModelOf(const InstanceType& i);

}  // namespace epochcost::catalog

#endif  // EPOCHCOST_CATALOG_HARDWARE_PATTERNS_H_
