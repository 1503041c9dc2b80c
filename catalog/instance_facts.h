// What an instance type's price file does not say about it, from tables of instance-name patterns
// compiled from data/catalog ('*' matches any run of characters; the first matching row wins; each
// row names its source):
// - cpu-families.csv: the CPU family (a row of data/hardware/cpus.csv) of an instance family;
// - gpu-models.csv: the GPU model (a row of data/hardware/gpus.csv) where the provider's GPU name
//   covers several parts: SkyPilot names Lambda's gpu_1x_h100_pcie's card "H100", the name that
//   stands for the SXM5 part, which runs ResNet50 about 1.5x faster (@lambda-resnet50);
// - retirements.csv: the day the provider retired a machine type (Azure's K80 and M60 sizes, still
//   priced in SkyPilot's Azure catalog v6): no one can rent it on or after that day;
// - threads-per-core.csv: x86 instance families whose vCPUs are whole cores, not hyperthreads
//   (AWS's C7a).
#ifndef EPOCHCOST_CATALOG_HARDWARE_PATTERNS_H_
#define EPOCHCOST_CATALOG_HARDWARE_PATTERNS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/records.h"

namespace epochcost::catalog {

// Whether `name` matches `pattern`, where '*' stands for any run of characters.
bool Glob(std::string_view pattern, std::string_view name);

// The CPU family of an instance type, or "" where no row matches.
std::string CpuFamilyOf(const InstanceType& i);

// The GPU model of an instance type's GPUs, or "" where no row matches (the catalog's `gpu`
// name then identifies the model).
std::string GpuModelOf(const InstanceType& i);

// The day the provider retired the instance type (YYYY-MM-DD), or "" where no row matches.
std::string RetiredOn(const InstanceType& i);

// The hardware threads a core of the instance type runs as vCPUs, or 0 where no row says (then
// two on x86, one on Arm).
int ThreadsPerCoreOf(const InstanceType& i);

// Removes from `offers` and returns those of machine types retired on or before their provider's
// day in `as_of` (provider -> YYYY-MM-DD; a provider without one keeps its offers). Keeps order.
std::vector<Offer> TakeRetired(std::vector<Offer>* offers,
                               const std::map<std::string, std::string>& as_of);

}  // namespace epochcost::catalog

#endif  // EPOCHCOST_CATALOG_HARDWARE_PATTERNS_H_
