// Opens a model from what a user types: a zoo name, or a path to an ONNX file (.onnx), a Keras
// `model.to_json()` file or an epochcost model file (.json; told apart by their content).
#ifndef EPOCHCOST_ENGINE_MODEL_SOURCE_H_
#define EPOCHCOST_ENGINE_MODEL_SOURCE_H_

#include <string>

#include "engine/model_json.h"

namespace epochcost {

Result<Model> LoadModel(const std::string& spec, const ModelParameters& parameters = {});

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_MODEL_SOURCE_H_
