// Imports a Keras model from the JSON of `model.to_json()`: Sequential and Functional models
// (Keras 2.x and tf.keras layouts) built from the layer classes epochcost knows. Every layer class
// it does not know is listed in one error.
#ifndef EPOCHCOST_ENGINE_KERAS_IMPORT_H_
#define EPOCHCOST_ENGINE_KERAS_IMPORT_H_

#include <string_view>

#include "engine/model.h"

namespace epochcost {

Result<Model> ImportKerasJson(std::string_view text, std::string_view origin);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_KERAS_IMPORT_H_
