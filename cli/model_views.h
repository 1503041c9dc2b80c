// Views of a ModelReport: a Keras-summary-like table and a JSON document. They read the report
// only; nothing here computes a figure.
#ifndef EPOCHCOST_CLI_MODEL_VIEWS_H_
#define EPOCHCOST_CLI_MODEL_VIEWS_H_

#include <string>

#include "engine/analysis.h"
#include "engine/memory.h"

namespace epochcost::cli {

// What training keeps in memory at the report's batch (StoredForTraining), with the optimizer.
struct TrainingMemoryView {
  std::string optimizer;
  TrainingMemory memory;
};

std::string ModelTable(const Model& model, const ModelReport& report,
                       const TrainingMemoryView& training);
std::string ModelJson(const Model& model, const ModelReport& report,
                      const TrainingMemoryView& training);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_MODEL_VIEWS_H_
