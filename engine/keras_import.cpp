#include "engine/keras_import.h"

#include <array>

#include "engine/file_util.h"
#include "engine/json_util.h"

namespace epochcost {
namespace {


// The state of one import: the layers made so far and the problems found. A problem in one layer
// does not stop the import, so that every unsupported layer is reported at once.
struct Import {
  std::vector<LayerSpec> layers;
  std::vector<std::string> unsupported;  // "'name' (Class)"
  Status error;                          // the first malformed value
};

// Reads typed values from a layer's "config", noting malformed ones in `error`.
class Config {
 public:
  Config(const Json& c, std::string where, Status* error)
      : c_(c), where_(std::move(where)), error_(error) {}

  bool Has(const char* key) const { return c_.contains(key) && !c_[key].is_null(); }
  const Json& Get(const char* key) const { return c_.at(key); }
  int64_t Int(const char* key, int64_t fallback) const {
    if (!Has(key)) return fallback;
    if (!c_[key].is_number_integer()) return Fail(key, "expected an integer"), fallback;
    return c_[key].get<int64_t>();
  }
  double Double(const char* key, double fallback) const {
    if (!Has(key)) return fallback;
    if (!c_[key].is_number()) return Fail(key, "expected a number"), fallback;
    return c_[key].get<double>();
  }
  bool Bool(const char* key, bool fallback) const {
    if (!Has(key)) return fallback;
    if (!c_[key].is_boolean()) return Fail(key, "expected true or false"), fallback;
    return c_[key].get<bool>();
  }
  std::string String(const char* key, const std::string& fallback) const {
    if (!Has(key)) return fallback;
    if (!c_[key].is_string()) return Fail(key, "expected a string"), fallback;
    return c_[key].get<std::string>();
  }
  // An integer or a list of integers (Keras accepts both for kernel_size, strides, ...).
  std::vector<int64_t> Ints(const char* key, std::vector<int64_t> fallback) const {
    if (!Has(key)) return fallback;
    const Json& v = c_[key];
    if (v.is_number_integer()) return {v.get<int64_t>()};
    std::vector<int64_t> out;
    if (!v.is_array()) return Fail(key, "expected an integer or a list"), fallback;
    for (const Json& e : v) {
      if (!e.is_number_integer()) return Fail(key, "expected integers"), fallback;
      out.push_back(e.get<int64_t>());
    }
    return out;
  }
  // A padding or cropping amount: n, (a, b) or ((t, b), (l, r)), as {begin, end} per axis.
  std::vector<int64_t> Pads(const char* key, int spatial, int64_t fallback) const {
    if (!Has(key)) return std::vector<int64_t>(2 * spatial, fallback);
    const Json& v = c_[key];
    std::vector<int64_t> out;
    if (v.is_number_integer()) return std::vector<int64_t>(2 * spatial, v.get<int64_t>());
    if (v.is_array() && v.size() == 2) {
      for (const Json& e : v) {
        if (e.is_number_integer()) {
          // (symmetric_height, symmetric_width) in 2-D; (left, right) in 1-D
          out.insert(out.end(), spatial == 1 ? 1 : 2, e.get<int64_t>());
        } else if (e.is_array() && e.size() == 2 && e[0].is_number_integer() &&
                   e[1].is_number_integer()) {
          out.push_back(e[0].get<int64_t>());
          out.push_back(e[1].get<int64_t>());
        } else {
          return Fail(key, "expected integers or pairs of integers"), out;
        }
      }
      if (out.size() == static_cast<size_t>(2 * spatial)) return out;
    }
    Fail(key, "expected an integer, a pair or a pair of pairs");
    return std::vector<int64_t>(2 * spatial, 0);
  }
  void Fail(const char* key, const std::string& what) const {
    if (error_->ok()) *error_ = Status::InvalidArgument(where_ + "." + key + ": " + what);
  }
  const std::string& where() const { return where_; }

 private:
  const Json& c_;
  std::string where_;
  Status* error_;
};

Activation ReadActivation(const Config& c, const char* key) {
  std::string name = c.String(key, "linear");
  if (name == "relu" && c.Has("max_value") && c.Double("max_value", 0) == 6.0)
    return Activation::kRelu6;
  Result<Activation> a = ParseActivation(name);
  if (!a.ok()) {
    c.Fail(key, "unknown activation '" + name + "'");
    return Activation::kLinear;
  }
  return *a;
}

bool ChannelsFirst(const Config& c) {
  return c.String("data_format", "channels_last") == "channels_first";
}

Padding ReadPadding(const Config& c) {
  const std::string p = c.String("padding", "valid");
  if (p == "same") return Padding::kSame;
  if (p != "valid") c.Fail("padding", "unsupported padding '" + p + "'");
  return Padding::kValid;
}

void ReadWindow(const Config& c, LayerSpec* l, const char* kernel_key) {
  l->kernel = c.Ints(kernel_key, {});
  if (l->kernel.empty()) c.Fail(kernel_key, "is missing");
  l->strides = c.Ints("strides", {});
  l->dilation = c.Ints("dilation_rate", {});
  l->padding = ReadPadding(c);
  l->channels_first = ChannelsFirst(c);
}

Status ReadRnn(const Config& c, LayerKind kind, bool cudnn, LayerSpec* l) {
  l->kind = kind;
  l->units = c.Int("units", 0);
  l->rnn_output = c.Bool("return_sequences", false) ? RnnOutput::kSequence : RnnOutput::kLastState;
  if (c.Bool("return_state", false))
    return Status::Unsupported(c.where() + ": return_state=True is not supported");
  if (!c.Bool("use_bias", true)) l->bias_sets = 0;
  // Keras 2 GRU defaults to reset_after=False (one bias); tf.keras 2 to True (two). CuDNN layers
  // keep two bias vectors.
  if (cudnn || (kind == LayerKind::kGru && c.Bool("reset_after", false))) l->bias_sets = 2;
  return Status::Ok();
}

// Fills `l` from a Keras layer class and config. Returns false for a class epochcost does not know.
bool Convert(const std::string& cls, const Config& c, LayerSpec* l, Import* im) {
  using K = LayerKind;
  if (cls == "InputLayer") {
    l->kind = K::kInput;
  } else if (cls == "Dense") {
    l->kind = K::kDense;
    l->units = c.Int("units", 0);
    l->use_bias = c.Bool("use_bias", true);
    l->activation = ReadActivation(c, "activation");
  } else if (cls == "Conv1D" || cls == "Conv2D") {
    l->kind = cls == "Conv1D" ? K::kConv1D : K::kConv2D;
    l->units = c.Int("filters", 0);
    ReadWindow(c, l, "kernel_size");
    if (cls == "Conv1D" && c.String("padding", "") == "causal") {
      l->padding = Padding::kExplicit;
      const int64_t d = l->dilation.empty() ? 1 : l->dilation[0];
      l->pads = {d * (l->kernel[0] - 1), 0};
    }
    l->groups = c.Int("groups", 1);
    l->use_bias = c.Bool("use_bias", true);
    l->activation = ReadActivation(c, "activation");
  } else if (cls == "DepthwiseConv2D") {
    l->kind = K::kDepthwiseConv2D;
    ReadWindow(c, l, "kernel_size");
    l->depth_multiplier = c.Int("depth_multiplier", 1);
    l->use_bias = c.Bool("use_bias", true);
    l->activation = ReadActivation(c, "activation");
  } else if (cls == "SeparableConv1D" || cls == "SeparableConv2D") {
    l->kind = cls == "SeparableConv1D" ? K::kSeparableConv1D : K::kSeparableConv2D;
    l->units = c.Int("filters", 0);
    ReadWindow(c, l, "kernel_size");
    l->depth_multiplier = c.Int("depth_multiplier", 1);
    l->use_bias = c.Bool("use_bias", true);
    l->activation = ReadActivation(c, "activation");
  } else if (cls == "MaxPooling1D" || cls == "MaxPooling2D" || cls == "AveragePooling1D" ||
             cls == "AveragePooling2D") {
    const bool one = cls.find("1D") != std::string::npos;
    const bool max = cls[0] == 'M';
    l->kind = max ? (one ? K::kMaxPool1D : K::kMaxPool2D) : (one ? K::kAvgPool1D : K::kAvgPool2D);
    ReadWindow(c, l, c.Has("pool_size") ? "pool_size" : "pool_length");
  } else if (cls == "GlobalAveragePooling1D" || cls == "GlobalAveragePooling2D" ||
             cls == "GlobalMaxPooling1D" || cls == "GlobalMaxPooling2D") {
    const bool one = cls.find("1D") != std::string::npos;
    const bool max = cls.find("Max") != std::string::npos;
    l->kind = max ? (one ? K::kGlobalMaxPool1D : K::kGlobalMaxPool2D)
                  : (one ? K::kGlobalAvgPool1D : K::kGlobalAvgPool2D);
    l->channels_first = ChannelsFirst(c);
  } else if (cls == "BatchNormalization" || cls == "LayerNormalization") {
    l->kind = cls[0] == 'B' ? K::kBatchNorm : K::kLayerNorm;
    std::vector<int64_t> axes = c.Ints("axis", {-1});
    l->axis = static_cast<int>(axes.empty() ? -1 : axes[0]);
    for (int64_t a : axes) l->axes.push_back(static_cast<int>(a));
    l->scale = c.Bool("scale", true);
    l->center = c.Bool("center", true);
  } else if (cls == "Dropout" || cls == "SpatialDropout1D" || cls == "SpatialDropout2D" ||
             cls == "AlphaDropout" || cls == "GaussianDropout") {
    l->kind = K::kDropout;
    l->rate = c.Double("rate", c.Double("p", 0.0));
  } else if (cls == "Activation" || cls == "ReLU" || cls == "Softmax") {
    l->kind = K::kActivation;
    if (cls == "Activation") {
      l->activation = ReadActivation(c, "activation");
    } else if (cls == "Softmax") {
      l->activation = Activation::kSoftmax;
    } else {
      l->activation = c.Double("max_value", 0) == 6.0 ? Activation::kRelu6 : Activation::kRelu;
    }
  } else if (cls == "LeakyReLU" || cls == "PReLU" || cls == "ELU") {
    l->kind = K::kElementwise;
    l->op = cls;
    l->flops_per_element = 2;
  } else if (cls == "Add" || cls == "Multiply" || cls == "Subtract") {
    l->kind = cls == "Add" ? K::kAdd : cls == "Multiply" ? K::kMultiply : K::kSubtract;
  } else if (cls == "Concatenate") {
    l->kind = K::kConcatenate;
    l->axis = static_cast<int>(c.Int("axis", -1));
  } else if (cls == "Flatten") {
    l->kind = K::kFlatten;
  } else if (cls == "Reshape") {
    l->kind = K::kReshape;
    l->target_shape = c.Ints("target_shape", {});
  } else if (cls == "Permute") {
    l->kind = K::kTranspose;
    for (int64_t d : c.Ints("dims", {})) l->perm.push_back(static_cast<int>(d - 1));
  } else if (cls == "Embedding") {
    l->kind = K::kEmbedding;
    l->vocab = c.Int("input_dim", 0);
    l->units = c.Int("output_dim", 0);
  } else if (cls == "LSTM" || cls == "CuDNNLSTM") {
    Status s = ReadRnn(c, K::kLstm, cls == "CuDNNLSTM", l);
    if (!s.ok() && im->error.ok()) im->error = s;
  } else if (cls == "GRU" || cls == "CuDNNGRU") {
    Status s = ReadRnn(c, K::kGru, cls == "CuDNNGRU", l);
    if (!s.ok() && im->error.ok()) im->error = s;
  } else if (cls == "ZeroPadding1D" || cls == "ZeroPadding2D") {
    const bool one = cls == "ZeroPadding1D";
    l->kind = one ? K::kZeroPadding1D : K::kZeroPadding2D;
    l->pads = c.Pads("padding", one ? 1 : 2, 1);
    l->channels_first = ChannelsFirst(c);
  } else if (cls == "Cropping2D") {
    l->kind = K::kCropping2D;
    l->pads = c.Pads("cropping", 2, 0);
    l->channels_first = ChannelsFirst(c);
  } else if (cls == "Highway") {
    l->kind = K::kHighway;
  } else if (cls == "MultiHeadAttention") {
    l->kind = K::kAttention;
    l->heads = c.Int("num_heads", 0);
    l->units = c.Int("key_dim", 0);  // checked against the input width after shapes are known
    l->use_bias = c.Bool("use_bias", true);
  } else {
    return false;
  }
  return true;
}

// Wrappers: Bidirectional(LSTM|GRU) and TimeDistributed(Dense).
bool ConvertWrapper(const std::string& cls, const Config& c, LayerSpec* l, Import* im) {
  if (!c.Has("layer") || !c.Get("layer").is_object()) return false;
  const Json& inner = c.Get("layer");
  const std::string inner_cls = inner.value("class_name", "");
  const Json inner_config = inner.contains("config") ? inner["config"] : Json::object();
  Config ic(inner_config, c.where() + ".layer", &im->error);
  if (cls == "Bidirectional") {
    if (inner_cls != "LSTM" && inner_cls != "GRU" && inner_cls != "CuDNNLSTM" &&
        inner_cls != "CuDNNGRU")
      return false;
    if (!Convert(inner_cls, ic, l, im)) return false;
    const std::string merge = c.String("merge_mode", "concat");
    if (merge != "concat") {
      c.Fail("merge_mode", "only 'concat' is supported, got '" + merge + "'");
    }
    l->bidirectional = true;
    return true;
  }
  if (cls == "TimeDistributed" && inner_cls == "Dense") return Convert(inner_cls, ic, l, im);
  return false;
}

// The names of the layers feeding a Functional layer, from Keras 2 ([[name, node, tensor, {}]])
// or Keras 3 ({"args": [{"config": {"keras_history": [name, node, tensor]}}]}) inbound nodes.
void CollectInbound(const Json& node, std::vector<std::string>* names, int* tensor_index) {
  if (node.is_object()) {
    if (node.contains("keras_history") && node["keras_history"].is_array() &&
        !node["keras_history"].empty() && node["keras_history"][0].is_string()) {
      names->push_back(node["keras_history"][0].get<std::string>());
      if (node["keras_history"].size() > 2 && node["keras_history"][2].is_number_integer())
        *tensor_index = std::max(*tensor_index, node["keras_history"][2].get<int>());
      return;
    }
    for (const auto& [k, v] : node.items()) CollectInbound(v, names, tensor_index);
    return;
  }
  if (!node.is_array()) return;
  if (node.size() >= 3 && node[0].is_string() && node[1].is_number_integer()) {
    names->push_back(node[0].get<std::string>());
    if (node[2].is_number_integer()) *tensor_index = std::max(*tensor_index, node[2].get<int>());
    return;
  }
  for (const Json& e : node) CollectInbound(e, names, tensor_index);
}

std::vector<int64_t> InputShape(const Config& c) {
  const char* key = c.Has("batch_input_shape") ? "batch_input_shape" : "batch_shape";
  if (!c.Has(key)) return {};
  const Json& v = c.Get(key);
  std::vector<int64_t> shape;
  if (!v.is_array() || v.empty()) {
    c.Fail(key, "expected a list");
    return {};
  }
  for (size_t i = 1; i < v.size(); ++i) {
    if (!v[i].is_number_integer()) {
      c.Fail(key, "dimension " + std::to_string(i) + " is not fixed; epochcost needs fixed shapes");
      return {};
    }
    shape.push_back(v[i].get<int64_t>());
  }
  return shape;
}

void AddLayer(const Json& entry, size_t index, const std::vector<std::string>& inputs, Import* im) {
  const std::string cls = entry.value("class_name", "");
  const Json& config = entry.contains("config") ? entry["config"] : Json::object();
  LayerSpec l;
  l.name = entry.contains("name") && entry["name"].is_string()
               ? entry["name"].get<std::string>()
               : config.value("name", "layer_" + std::to_string(index));
  Config c(config, "layers[" + std::to_string(index) + "] ('" + l.name + "').config", &im->error);
  l.inputs = inputs;
  if (!Convert(cls, c, &l, im) && !ConvertWrapper(cls, c, &l, im)) {
    im->unsupported.push_back("'" + l.name + "' (" + (cls.empty() ? "no class_name" : cls) + ")");
    return;
  }
  if (l.kind == LayerKind::kInput) {
    l.shape = InputShape(c);
    l.inputs.clear();
    const std::string dtype = c.String("dtype", "float32");
    if (dtype.rfind("int", 0) == 0) l.dtype = DType::kInt32;
  }
  im->layers.push_back(std::move(l));
}

// Sequential models: an explicit InputLayer, or batch_input_shape on the first layer.
void ImportSequential(const Json& layers, Import* im) {
  std::string previous;
  for (size_t i = 0; i < layers.size(); ++i) {
    const Json& entry = layers[i];
    const Json& config = entry.contains("config") ? entry["config"] : Json::object();
    if (previous.empty() && entry.value("class_name", "") != "InputLayer") {
      LayerSpec input;
      input.name = "input";
      input.kind = LayerKind::kInput;
      Config c(config, "layers[0].config", &im->error);
      input.shape = InputShape(c);
      if (input.shape.empty() && im->error.ok())
        im->error = Status::InvalidArgument(
            "layers[0]: the first layer has no batch_input_shape, so the input shape is unknown");
      if (entry.value("class_name", "") == "Embedding") input.dtype = DType::kInt32;
      im->layers.push_back(input);
      previous = input.name;
    }
    const size_t before = im->layers.size();
    AddLayer(entry, i,
             previous.empty() ? std::vector<std::string>{} : std::vector<std::string>{previous},
             im);
    if (im->layers.size() > before) previous = im->layers.back().name;
  }
}

void ImportFunctional(const Json& layers, Import* im) {
  for (size_t i = 0; i < layers.size(); ++i) {
    const Json& entry = layers[i];
    std::vector<std::string> inputs;
    int tensor_index = 0;
    if (entry.contains("inbound_nodes") && entry["inbound_nodes"].is_array()) {
      const Json& nodes = entry["inbound_nodes"];
      if (nodes.size() > 1 && im->error.ok())
        im->error =
            Status::Unsupported("layers[" + std::to_string(i) + "] ('" + entry.value("name", "") +
                                "'): a layer called more than once is not supported");
      if (!nodes.empty()) CollectInbound(nodes[0], &inputs, &tensor_index);
    }
    if (tensor_index > 0 && im->error.ok())
      im->error =
          Status::Unsupported("layers[" + std::to_string(i) + "] ('" + entry.value("name", "") +
                              "'): reads a second output of a layer");
    // MultiHeadAttention(query, value[, key]) is self-attention when all are the same tensor.
    if (entry.value("class_name", "") == "MultiHeadAttention" && !inputs.empty()) {
      for (const std::string& in : inputs)
        if (in != inputs[0] && im->error.ok())
          im->error = Status::Unsupported("layer '" + entry.value("name", "") +
                                          "': only self-attention (query = value) is supported");
      inputs.resize(1);
    }
    AddLayer(entry, i, inputs, im);
  }
}

// Keras MultiHeadAttention gives key_dim per head; epochcost's attention needs heads x key_dim
// to equal the model width, which is known only once shapes are.
Status CheckAttention(const Model& model) {
  for (int i = 0; i < model.size(); ++i) {
    const LayerSpec& l = model.layer(i);
    if (l.kind != LayerKind::kAttention) continue;
    const int64_t width = model.output_shape(i).dims.back();
    if (l.units != 0 && l.units * l.heads != width)
      return Status::Unsupported("layer '" + l.name + "': key_dim " + std::to_string(l.units) +
                                 " x " + std::to_string(l.heads) + " heads differs from width " +
                                 std::to_string(width));
  }
  return Status::Ok();
}

Result<Model> ImportDocument(const Json& doc, const std::string& where) {
  if (!doc.is_object() || !doc.contains("class_name") || !doc.contains("config"))
    return Status::InvalidArgument(where +
                                   ": not a Keras model (no class_name and config at the top)");
  const std::string cls = doc["class_name"].is_string() ? doc["class_name"].get<std::string>() : "";
  const Json& config = doc["config"];
  const Json& layers = config.is_array() ? config : config.value("layers", Json::array());
  if (!layers.is_array() || layers.empty())
    return Status::InvalidArgument(where + ": config.layers: expected a non-empty list");

  Import im;
  if (cls == "Sequential") {
    ImportSequential(layers, &im);
  } else if (cls == "Model" || cls == "Functional") {
    ImportFunctional(layers, &im);
  } else {
    return Status::Unsupported(where + ": class_name '" + cls +
                               "' is not a Keras Sequential or Functional model");
  }
  if (!im.error.ok()) return im.error.WithContext(where);
  if (!im.unsupported.empty()) {
    std::string list;
    for (const std::string& u : im.unsupported) list += (list.empty() ? "" : ", ") + u;
    return Status::Unsupported(where + ": unsupported Keras layers: " + list);
  }
  ModelInfo info;
  info.name = config.is_object() ? config.value("name", "keras_model") : "keras_model";
  info.source = where + " (Keras " + doc.value("keras_version", "?") + " model.to_json())";
  Result<Model> model = Model::Build(std::move(info), std::move(im.layers));
  if (!model.ok()) return model.status().WithContext(where);
  EPOCHCOST_RETURN_IF_ERROR(CheckAttention(*model).WithContext(where));
  return model;
}

}  // namespace

Result<Model> ImportKerasJson(std::string_view text, std::string_view origin) {
  const std::string where(origin);
  Result<Json> parsed = ParseJson(text, origin);
  if (!parsed.ok()) return parsed.status();
  return GuardJson(where, [&] { return ImportDocument(*parsed, where); });
}

}  // namespace epochcost
