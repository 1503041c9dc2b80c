// Views of a ModelReport: a Keras-summary-like table and a JSON document. They read the report
// only; nothing here computes a figure.
#ifndef EPOCHCOST_CLI_MODEL_VIEWS_H_
#define EPOCHCOST_CLI_MODEL_VIEWS_H_

#include <string>

#include "engine/analysis.h"

namespace epochcost::cli {

std::string ModelTable(const Model& model, const ModelReport& report);
std::string ModelJson(const Model& model, const ModelReport& report);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_MODEL_VIEWS_H_
