// Imports an ONNX model through the onnx library: its protobuf, its checker and its shape
// inference. Files exported by PyTorch (torch.onnx.export) and files without weights (shapes
// only) are both accepted. Shape-computation subgraphs (Shape, Gather, Unsqueeze, Concat, ...)
// are folded to constants; every op epochcost does not know is listed, with its node name, in one
// error. The first axis of every graph input is the batch.
#ifndef EPOCHCOST_ENGINE_ONNX_IMPORT_H_
#define EPOCHCOST_ENGINE_ONNX_IMPORT_H_

#include <string>
#include <string_view>

#include "engine/model.h"

namespace epochcost {

Result<Model> ImportOnnxFile(const std::string& path);
Result<Model> ImportOnnxBytes(std::string_view bytes, std::string_view origin);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_ONNX_IMPORT_H_
