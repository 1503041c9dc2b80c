#include "engine/model.h"

#include <algorithm>
#include <cstdlib>
#include <queue>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>

#include "engine/layer_rules.h"

namespace epochcost {
namespace {

// Vertices are layer indices; an edge u -> v means v reads u's output.
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

struct CycleFinder : boost::default_dfs_visitor {
  explicit CycleFinder(std::optional<Edge>* found) : found_(found) {}
  void back_edge(Edge e, const Graph&) {
    if (!*found_) *found_ = e;
  }
  std::optional<Edge>* found_;
};

// Kahn's algorithm, always taking the ready layer that was declared first, so that a model
// written in a valid order keeps it (tables then read as the author wrote the model).
std::vector<int> StableTopologicalOrder(const Graph& g) {
  const int n = static_cast<int>(boost::num_vertices(g));
  std::vector<int> pending(n);
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int v = 0; v < n; ++v) {
    pending[v] = static_cast<int>(boost::in_degree(v, g));
    if (pending[v] == 0) ready.push(v);
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int v = ready.top();
    ready.pop();
    order.push_back(v);
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const int w = static_cast<int>(boost::target(*e, g));
      if (--pending[w] == 0) ready.push(w);
    }
  }
  return order;
}

// The largest size a layer attribute (units, filters, vocabulary, kernel, heads, ...) and the
// largest per-sample tensor this tool accepts. Far above any trained model (the largest
// vocabularies are ~1e6, the largest activations ~1e9 values per sample), and small enough that
// every parameter and FLOP count stays exact in 64-bit arithmetic: an absurd value is an error,
// not an overflow.
constexpr int64_t kMaxAttribute = int64_t{1} << 24;
constexpr int64_t kMaxElementsPerSample = (int64_t{1} << 31) - 1;

Status CheckAttributes(const LayerSpec& l) {
  auto check = [&](std::string_view what, int64_t v, int64_t most) -> Status {
    if (v > most || v < -most)
      return Status::InvalidArgument(rules::Describe(l) + ": " + std::string(what) + " " +
                                     std::to_string(v) + " is absurd (at most " +
                                     std::to_string(most) + ")");
    return Status::Ok();
  };
  for (int64_t d : l.shape) EPOCHCOST_RETURN_IF_ERROR(check("shape", d, kMaxElementsPerSample));
  for (int64_t d : l.target_shape)
    EPOCHCOST_RETURN_IF_ERROR(check("target shape", d, kMaxElementsPerSample));
  for (const std::vector<int64_t>* v : {&l.kernel, &l.strides, &l.dilation, &l.pads})
    for (int64_t d : *v) EPOCHCOST_RETURN_IF_ERROR(check("kernel, stride, dilation or pad", d,
                                                         kMaxAttribute));
  EPOCHCOST_RETURN_IF_ERROR(check("units", l.units, kMaxAttribute));
  EPOCHCOST_RETURN_IF_ERROR(check("vocabulary", l.vocab, kMaxAttribute));
  EPOCHCOST_RETURN_IF_ERROR(check("groups", l.groups, kMaxAttribute));
  EPOCHCOST_RETURN_IF_ERROR(check("depth multiplier", l.depth_multiplier, kMaxAttribute));
  EPOCHCOST_RETURN_IF_ERROR(check("heads", l.heads, kMaxAttribute));
  EPOCHCOST_RETURN_IF_ERROR(check("highway layers", l.highway_layers, kMaxAttribute));
  EPOCHCOST_RETURN_IF_ERROR(check("learned elements", l.learned_elements, kMaxElementsPerSample));
  return check("slice bound", std::max(std::abs(l.start), std::abs(l.end)), kMaxElementsPerSample);
}

}  // namespace

Result<Model> Model::Build(ModelInfo info, std::vector<LayerSpec> layers) {
  const std::string where = "model '" + info.name + "'";
  if (layers.empty()) return Status::InvalidArgument(where + ": has no layers");

  std::unordered_map<std::string, int> index;
  for (int i = 0; i < static_cast<int>(layers.size()); ++i) {
    if (layers[i].name.empty())
      return Status::InvalidArgument(where + ": layer #" + std::to_string(i + 1) + " has no name");
    if (!index.emplace(layers[i].name, i).second)
      return Status::InvalidArgument(where + ": two layers are named '" + layers[i].name + "'");
  }

  Graph g(layers.size());
  for (int v = 0; v < static_cast<int>(layers.size()); ++v) {
    for (const std::string& in : layers[v].inputs) {
      auto it = index.find(in);
      if (it == index.end())
        return Status::NotFound(where + ": layer '" + layers[v].name + "' reads '" + in +
                                "', which is not a layer of the model");
      boost::add_edge(it->second, v, g);
    }
  }

  std::optional<Edge> back;
  boost::depth_first_search(g, boost::visitor(CycleFinder(&back)));
  if (back)
    return Status::InvalidArgument(where + ": has a cycle through layers '" +
                                   layers[boost::source(*back, g)].name + "' and '" +
                                   layers[boost::target(*back, g)].name + "'");

  auto impl = std::make_shared<Impl>();
  impl->info = std::move(info);
  impl->order = StableTopologicalOrder(g);
  std::vector<int> position(layers.size());
  for (int p = 0; p < static_cast<int>(impl->order.size()); ++p) position[impl->order[p]] = p;

  const int n = static_cast<int>(layers.size());
  impl->shapes.resize(n);
  impl->inputs.resize(n);
  impl->consumers.resize(n);
  for (int p = 0; p < n; ++p) {
    const LayerSpec& layer = layers[impl->order[p]];
    std::vector<Shape> in_shapes;
    for (const std::string& in : layer.inputs) {
      const int q = position[index.at(in)];
      impl->inputs[p].push_back(q);
      impl->consumers[q].push_back(p);
      in_shapes.push_back(impl->shapes[q]);
    }
    if (layer.kind != LayerKind::kInput && layer.inputs.empty())
      return Status::InvalidArgument(where + ": " + rules::Describe(layer) + " has no inputs");
    EPOCHCOST_RETURN_IF_ERROR(CheckAttributes(layer).WithContext(where));
    Result<Shape> shape = InferShape(layer, in_shapes);
    if (!shape.ok()) return shape.status().WithContext(where);
    double elements = 1;
    for (int64_t d : shape->dims) elements *= static_cast<double>(d);
    if (elements > kMaxElementsPerSample)
      return Status::InvalidArgument(where + ": " + rules::Describe(layer) + ": output " +
                                     shape->ToString() + " is absurd (more than " +
                                     std::to_string(kMaxElementsPerSample) +
                                     " values per sample)");
    impl->shapes[p] = std::move(*shape);
  }
  impl->layers = std::move(layers);
  return Model(std::move(impl));
}

const LayerSpec& Model::layer(int i) const { return impl_->layers[impl_->order[i]]; }

std::optional<int> Model::Find(std::string_view layer_name) const {
  for (int i = 0; i < size(); ++i)
    if (layer(i).name == layer_name) return i;
  return std::nullopt;
}

}  // namespace epochcost
