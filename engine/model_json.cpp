#include "engine/model_json.h"

#include <set>

#include "engine/file_util.h"
#include "engine/json_util.h"

namespace epochcost {
namespace {

const std::set<std::string, std::less<>> kTrainingFields = {"optimizer", "batch", "samples",
                                                            "val_samples", "learning_rate"};
const std::set<std::string, std::less<>> kLayerFields = {"name",
                                                         "kind",
                                                         "inputs",
                                                         "shape",
                                                         "dtype",
                                                         "units",
                                                         "filters",
                                                         "use_bias",
                                                         "activation",
                                                         "shared_weights",
                                                         "kernel",
                                                         "strides",
                                                         "dilation",
                                                         "padding",
                                                         "pads",
                                                         "groups",
                                                         "depth_multiplier",
                                                         "channels_first",
                                                         "axis",
                                                         "axes",
                                                         "scale",
                                                         "center",
                                                         "rate",
                                                         "target_shape",
                                                         "perm",
                                                         "start",
                                                         "end",
                                                         "vocab",
                                                         "bidirectional",
                                                         "output",
                                                         "bias_sets",
                                                         "heads",
                                                         "causal",
                                                         "layers",
                                                         "op",
                                                         "flops_per_element",
                                                         "learned_elements",
                                                         "loss",
                                                         "weight",
                                                         "note"};

// Reads the fields of one JSON object, resolving "$name" integer references against the model's
// parameters; every error names the field's path.
class Reader {
 public:
  Reader(const Json& obj, std::string path, const ModelParameters& params)
      : obj_(obj), path_(std::move(path)), params_(params) {}

  Status Error(std::string_view field, const std::string& what) const {
    return Status::InvalidArgument(path_ + "." + std::string(field) + ": " + what);
  }
  bool Has(std::string_view f) const { return obj_.contains(f); }

  Status Int(std::string_view f, int64_t* out) const {
    if (!Has(f)) return Status::Ok();
    return ToInt(obj_.at(f), f, out);
  }
  Status Int(std::string_view f, int* out) const {
    int64_t v = *out;
    EPOCHCOST_RETURN_IF_ERROR(Int(f, &v));
    *out = static_cast<int>(v);
    return Status::Ok();
  }
  Status Double(std::string_view f, double* out) const {
    if (!Has(f)) return Status::Ok();
    if (!obj_.at(f).is_number()) return Error(f, "expected a number");
    *out = obj_.at(f).get<double>();
    return Status::Ok();
  }
  Status Bool(std::string_view f, bool* out) const {
    if (!Has(f)) return Status::Ok();
    if (!obj_.at(f).is_boolean()) return Error(f, "expected true or false");
    *out = obj_.at(f).get<bool>();
    return Status::Ok();
  }
  Status String(std::string_view f, std::string* out) const {
    if (!Has(f)) return Status::Ok();
    if (!obj_.at(f).is_string()) return Error(f, "expected a string");
    *out = obj_.at(f).get<std::string>();
    return Status::Ok();
  }
  // An integer or an array of integers.
  Status Ints(std::string_view f, std::vector<int64_t>* out) const {
    if (!Has(f)) return Status::Ok();
    const Json& v = obj_.at(f);
    out->clear();
    if (!v.is_array()) {
      int64_t x = 0;
      EPOCHCOST_RETURN_IF_ERROR(ToInt(v, f, &x));
      out->push_back(x);
      return Status::Ok();
    }
    for (const Json& e : v) {
      int64_t x = 0;
      EPOCHCOST_RETURN_IF_ERROR(ToInt(e, f, &x));
      out->push_back(x);
    }
    return Status::Ok();
  }
  Status Ints(std::string_view f, std::vector<int>* out) const {
    std::vector<int64_t> v;
    EPOCHCOST_RETURN_IF_ERROR(Ints(f, &v));
    if (Has(f)) out->assign(v.begin(), v.end());
    return Status::Ok();
  }
  Status Strings(std::string_view f, std::vector<std::string>* out) const {
    if (!Has(f)) return Status::Ok();
    const Json& v = obj_.at(f);
    if (v.is_string()) {
      *out = {v.get<std::string>()};
      return Status::Ok();
    }
    if (!v.is_array()) return Error(f, "expected a string or an array of strings");
    out->clear();
    for (const Json& e : v) {
      if (!e.is_string()) return Error(f, "expected an array of strings");
      out->push_back(e.get<std::string>());
    }
    return Status::Ok();
  }
  template <typename E>
  Status Enum(std::string_view f, Result<E> (*parse)(std::string_view), E* out) const {
    if (!Has(f)) return Status::Ok();
    if (!obj_.at(f).is_string()) return Error(f, "expected a string");
    Result<E> e = parse(obj_.at(f).get<std::string>());
    if (!e.ok()) return Error(f, e.status().message());
    *out = *e;
    return Status::Ok();
  }

 private:
  Status ToInt(const Json& v, std::string_view f, int64_t* out) const {
    if (v.is_number_integer()) {
      *out = v.get<int64_t>();
      return Status::Ok();
    }
    if (v.is_string()) {
      std::string ref = v.get<std::string>();
      if (ref.size() > 1 && ref[0] == '$') {
        auto it = params_.find(ref.substr(1));
        if (it == params_.end()) return Error(f, "unknown parameter '" + ref.substr(1) + "'");
        *out = it->second;
        return Status::Ok();
      }
    }
    return Error(f, "expected an integer or a \"$parameter\" reference");
  }

  const Json& obj_;
  std::string path_;
  const ModelParameters& params_;
};

Result<LayerSpec> ParseLayer(const Json& j, size_t index, const std::string& previous,
                             const ModelParameters& params) {
  std::string path = "layers[" + std::to_string(index) + "]";
  if (!j.is_object()) return Status::InvalidArgument(path + ": expected an object");
  LayerSpec l;
  if (j.contains("name") && j["name"].is_string()) {
    l.name = j["name"].get<std::string>();
    path += " ('" + l.name + "')";
  }
  Reader r(j, path, params);
  if (l.name.empty()) return r.Error("name", "is missing");
  for (const auto& [key, value] : j.items())
    if (!kLayerFields.contains(key)) return r.Error(key, "unknown field");
  if (!r.Has("kind")) return r.Error("kind", "is missing");
  EPOCHCOST_RETURN_IF_ERROR(r.Enum("kind", ParseLayerKind, &l.kind));

  EPOCHCOST_RETURN_IF_ERROR(r.Strings("inputs", &l.inputs));
  if (!r.Has("inputs") && l.kind != LayerKind::kInput) {
    if (previous.empty()) return r.Error("inputs", "is missing and no layer comes before");
    l.inputs = {previous};
  }
  EPOCHCOST_RETURN_IF_ERROR(r.Ints("shape", &l.shape));
  if (l.kind == LayerKind::kInput && !r.Has("shape")) return r.Error("shape", "is missing");
  if (r.Has("dtype")) {
    DType t = DType::kFloat32;
    EPOCHCOST_RETURN_IF_ERROR(r.Enum("dtype", ParseDType, &t));
    l.dtype = t;
  }
  EPOCHCOST_RETURN_IF_ERROR(r.Int("units", &l.units));
  EPOCHCOST_RETURN_IF_ERROR(r.Int("filters", &l.units));
  EPOCHCOST_RETURN_IF_ERROR(r.Bool("use_bias", &l.use_bias));
  EPOCHCOST_RETURN_IF_ERROR(r.Enum("activation", ParseActivation, &l.activation));
  EPOCHCOST_RETURN_IF_ERROR(r.String("shared_weights", &l.shared_weights));
  EPOCHCOST_RETURN_IF_ERROR(r.Ints("kernel", &l.kernel));
  EPOCHCOST_RETURN_IF_ERROR(r.Ints("strides", &l.strides));
  EPOCHCOST_RETURN_IF_ERROR(r.Ints("dilation", &l.dilation));
  EPOCHCOST_RETURN_IF_ERROR(r.Enum("padding", ParsePadding, &l.padding));
  EPOCHCOST_RETURN_IF_ERROR(r.Ints("pads", &l.pads));
  EPOCHCOST_RETURN_IF_ERROR(r.Int("groups", &l.groups));
  EPOCHCOST_RETURN_IF_ERROR(r.Int("depth_multiplier", &l.depth_multiplier));
  EPOCHCOST_RETURN_IF_ERROR(r.Bool("channels_first", &l.channels_first));
  EPOCHCOST_RETURN_IF_ERROR(r.Int("axis", &l.axis));
  EPOCHCOST_RETURN_IF_ERROR(r.Ints("axes", &l.axes));
  EPOCHCOST_RETURN_IF_ERROR(r.Bool("scale", &l.scale));
  EPOCHCOST_RETURN_IF_ERROR(r.Bool("center", &l.center));
  EPOCHCOST_RETURN_IF_ERROR(r.Double("rate", &l.rate));
  EPOCHCOST_RETURN_IF_ERROR(r.Ints("target_shape", &l.target_shape));
  EPOCHCOST_RETURN_IF_ERROR(r.Ints("perm", &l.perm));
  EPOCHCOST_RETURN_IF_ERROR(r.Int("start", &l.start));
  EPOCHCOST_RETURN_IF_ERROR(r.Int("end", &l.end));
  EPOCHCOST_RETURN_IF_ERROR(r.Int("vocab", &l.vocab));
  EPOCHCOST_RETURN_IF_ERROR(r.Bool("bidirectional", &l.bidirectional));
  EPOCHCOST_RETURN_IF_ERROR(r.Enum("output", ParseRnnOutput, &l.rnn_output));
  EPOCHCOST_RETURN_IF_ERROR(r.Int("bias_sets", &l.bias_sets));
  EPOCHCOST_RETURN_IF_ERROR(r.Int("heads", &l.heads));
  EPOCHCOST_RETURN_IF_ERROR(r.Bool("causal", &l.causal));
  EPOCHCOST_RETURN_IF_ERROR(r.Int("layers", &l.highway_layers));
  EPOCHCOST_RETURN_IF_ERROR(r.String("op", &l.op));
  EPOCHCOST_RETURN_IF_ERROR(r.Double("flops_per_element", &l.flops_per_element));
  EPOCHCOST_RETURN_IF_ERROR(r.Int("learned_elements", &l.learned_elements));
  EPOCHCOST_RETURN_IF_ERROR(r.Enum("loss", ParseLossFunction, &l.loss));
  EPOCHCOST_RETURN_IF_ERROR(r.Double("weight", &l.loss_weight));
  return l;
}

Result<Model> ParseDocument(const Json& doc, const ModelParameters& overrides) {
  if (!doc.is_object()) return Status::InvalidArgument("expected a JSON object");
  if (doc.value("format", "") != "epochcost-model")
    return Status::InvalidArgument("format: expected \"epochcost-model\"");
  if (Result<int64_t> v = IntegerField(doc, "version", 0, 0, INT32_MAX); !v.ok() || *v != 1)
    return Status::Unsupported("version: only version 1 of the model format is known");

  ModelParameters params;
  if (doc.contains("parameters")) {
    if (!doc["parameters"].is_object())
      return Status::InvalidArgument("parameters: expected an object of integers");
    for (const auto& [k, v] : doc["parameters"].items()) {
      if (!v.is_number_integer())
        return Status::InvalidArgument("parameters." + k + ": expected an integer");
      params[k] = v.get<int64_t>();
    }
  }
  for (const auto& [k, v] : overrides) {
    if (!params.contains(k)) {
      std::string known;
      for (const auto& [name, value] : params) known += (known.empty() ? "" : ", ") + name;
      return Status::InvalidArgument("parameter '" + k + "' is not declared by the model" +
                                     (known.empty() ? "" : " (it declares: " + known + ")"));
    }
    params[k] = v;
  }

  ModelInfo info;
  info.parameters = params;
  Reader top(doc, "model", params);
  EPOCHCOST_RETURN_IF_ERROR(top.String("name", &info.name));
  if (info.name.empty()) return top.Error("name", "is missing");
  EPOCHCOST_RETURN_IF_ERROR(top.String("description", &info.description));
  EPOCHCOST_RETURN_IF_ERROR(top.String("source", &info.source));
  if (doc.contains("training")) {
    if (!doc["training"].is_object())
      return Status::InvalidArgument("training: expected an object");
    Reader t(doc["training"], "training", params);
    for (const auto& [key, value] : doc["training"].items())
      if (!kTrainingFields.contains(key)) return t.Error(key, "unknown field");
    EPOCHCOST_RETURN_IF_ERROR(t.String("optimizer", &info.training.optimizer));
    EPOCHCOST_RETURN_IF_ERROR(t.Int("batch", &info.training.batch));
    EPOCHCOST_RETURN_IF_ERROR(t.Int("samples", &info.training.samples));
    EPOCHCOST_RETURN_IF_ERROR(t.Int("val_samples", &info.training.val_samples));
    EPOCHCOST_RETURN_IF_ERROR(t.Double("learning_rate", &info.training.learning_rate));
    if (t.Has("learning_rate") && !(info.training.learning_rate > 0))
      return t.Error("learning_rate", "must be positive");
  }
  if (!doc.contains("layers") || !doc["layers"].is_array())
    return Status::InvalidArgument("layers: expected an array");

  std::vector<LayerSpec> layers;
  std::string previous;
  for (size_t i = 0; i < doc["layers"].size(); ++i) {
    Result<LayerSpec> l = ParseLayer(doc["layers"][i], i, previous, params);
    if (!l.ok()) return l.status();
    previous = l->name;
    layers.push_back(std::move(*l));
  }
  return Model::Build(std::move(info), std::move(layers));
}

}  // namespace

bool IsModelJson(std::string_view text) {
  return text.find("\"epochcost-model\"") != std::string_view::npos;
}

Result<Model> ParseModelJson(std::string_view text, std::string_view origin,
                             const ModelParameters& overrides) {
  Result<Json> doc = ParseJson(text, origin);
  if (!doc.ok()) return doc.status();
  Result<Model> model = GuardJson("", [&] { return ParseDocument(*doc, overrides); });
  if (!model.ok()) return model.status().WithContext(std::string(origin));
  return model;
}

}  // namespace epochcost
