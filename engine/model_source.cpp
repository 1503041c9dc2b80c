#include "engine/model_source.h"

#include <array>
#include <filesystem>

#include "engine/file_util.h"
#include "engine/keras_import.h"
#include "engine/onnx_import.h"
#include "engine/zoo.h"

namespace epochcost {
namespace {

Result<Model> LoadJsonFile(const std::string& path, const ModelParameters& parameters) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  if (IsModelJson(*text)) return ParseModelJson(*text, path, parameters);
  if (!parameters.empty())
    return Status::InvalidArgument(path + ": --param applies to epochcost model files only");
  return ImportKerasJson(*text, path);
}

Result<Model> LoadOnnxFile(const std::string& path, const ModelParameters& parameters) {
  if (!parameters.empty())
    return Status::InvalidArgument(path + ": --param applies to epochcost model files only");
  return ImportOnnxFile(path);
}

struct Loader {
  const char* extension;
  Result<Model> (*load)(const std::string&, const ModelParameters&);
};

constexpr std::array<Loader, 2> kLoaders = {{
    {".json", LoadJsonFile},
    {".onnx", LoadOnnxFile},
}};

}  // namespace

Result<Model> LoadModel(const std::string& spec, const ModelParameters& parameters) {
  if (InZoo(spec)) return LoadZooModel(spec, parameters);
  const std::string ext = std::filesystem::path(spec).extension().string();
  for (const Loader& loader : kLoaders)
    if (ext == loader.extension) return loader.load(spec, parameters);
  std::error_code ec;
  if (std::filesystem::exists(spec, ec))
    return Status::Unsupported(spec + ": unknown model file type '" + ext +
                               "' (expected .onnx or .json)");
  return LoadZooModel(spec, parameters);  // reports "neither a zoo model nor a file"
}

}  // namespace epochcost
