// `epochcost models list` and `epochcost models show MODEL`.
#include <iostream>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/lowering_flags.h"
#include "cli/model_views.h"
#include "engine/analysis.h"
#include "engine/lowering.h"
#include "engine/memory.h"
#include "engine/model_source.h"
#include "engine/zoo.h"

namespace epochcost::cli {
namespace {

struct ShowOptions {
  std::string model;
  int64_t batch = 1;
  std::string precision = "fp32";
  std::vector<std::string> params;
  bool json = false;
  bool forward_only = false;
  LoweringFlags lowering;  // ops; show's --optimizer
};

Result<ModelParameters> ParseParams(const std::vector<std::string>& items) {
  ModelParameters params;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return Status::InvalidArgument("--param '" + item + "': expected NAME=INTEGER");
    const std::string value = item.substr(eq + 1);
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size() || v <= 0)
      return Status::InvalidArgument("--param '" + item + "': value must be a positive integer");
    params[item.substr(0, eq)] = v;
  }
  return params;
}

int List() {
  std::vector<std::vector<std::string>> rows = {
      {"Model", "Params", "Fwd FLOPs/sample", "Description"}};
  for (const std::string& name : ZooNames()) {
    Result<Model> m = LoadZooModel(name);
    if (!m.ok()) return ReportError(m.status());
    Result<ModelReport> r = Analyze(*m, {.batch = 1});
    if (!r.ok()) return ReportError(r.status());
    rows.push_back(
        {name, Thousands(r->total.params()), Si(r->total.fwd.flops()), m->info().description});
  }
  std::cout << RenderTable(rows, {false, true, true, false})
            << "Details: epochcost models show NAME [--batch N] [--json]\n";
  return kExitOk;
}

int Show(const ShowOptions& o) {
  Result<ModelParameters> params = ParseParams(o.params);
  if (!params.ok()) return ReportError(params.status());
  // amp / amp-bf16 (autocast): 16-bit activations over fp32 weights.
  const std::optional<DType> autocast = AutocastType(o.precision);
  const bool amp = autocast.has_value();
  Result<DType> precision = amp ? Result<DType>(*autocast) : ParseDType(o.precision);
  if (!precision.ok()) return ReportError(precision.status().WithContext("--precision"));
  if (o.batch <= 0)
    return ReportError(
        Status::InvalidArgument("--batch must be positive, got " + std::to_string(o.batch)));
  Result<Model> model = LoadModel(o.model, *params);
  if (!model.ok()) return ReportError(model.status());
  Result<ModelReport> report =
      Analyze(*model, {.batch = o.batch, .precision = *precision, .fp32_weights = amp});
  if (!report.ok()) return ReportError(report.status());
  LoweringFlags flags = o.lowering;  // --optimizer
  flags.precision = o.precision;
  TrainingMemoryView training;
  Result<LoweringOptions> lowering = ResolveLowering(flags, *model, o.batch, &training.optimizer);
  if (!lowering.ok()) return ReportError(lowering.status());
  training.memory = StoredForTraining(*report, *lowering);
  std::cout << (o.json ? ModelJson(*model, *report, training)
                       : ModelTable(*model, *report, training));
  return kExitOk;
}

// The op signatures of one training step (or forward pass), with counts: what `profile` measures.
int Ops(const ShowOptions& o) {
  Result<ModelParameters> params = ParseParams(o.params);
  if (!params.ok()) return ReportError(params.status());
  Result<Model> model = LoadModel(o.model, *params);
  if (!model.ok()) return ReportError(model.status());
  std::string opt_name;
  Result<LoweringOptions> lowering = ResolveLowering(o.lowering, *model, o.batch, &opt_name);
  if (!lowering.ok()) return ReportError(lowering.status());
  lowering->training = !o.forward_only;
  Result<StepOps> ops = Lower(*model, *lowering);
  if (!ops.ok()) return ReportError(ops.status());
  std::vector<std::vector<std::string>> rows = {{"Count", "Signature", "Layers"}};
  int total = 0, framework = 0;
  for (const StepOp& op : ops->ops) {
    std::string layers = op.layers.front();
    if (op.layers.size() > 1) layers += " (+" + std::to_string(op.layers.size() - 1) + " more)";
    rows.push_back({std::to_string(op.count), op.signature.ToString(), layers});
    total += op.count;
    framework += op.count * op.calls;
  }
  std::cout << RenderTable(rows, {true, false, false})
            << Thousands(static_cast<int64_t>(ops->ops.size())) << " distinct signatures, "
            << Thousands(total) << " calls per " << (o.forward_only ? "forward pass" : "step");
  if (framework != total)
    std::cout << ", " << Thousands(framework) << " framework calls with each update's passes";
  std::cout << " (optimizer " << opt_name << ")\n";
  return kExitOk;
}

}  // namespace

void RegisterModelsCommand(CLI::App& app, CommandFn* run) {
  CLI::App* models = app.add_subcommand("models", "List the zoo and show a model's layers");
  models->require_subcommand(1);
  models->footer("Examples:\n  epochcost models list\n  epochcost models show resnet50 --batch 32");

  CLI::App* list = models->add_subcommand("list", "List the built-in zoo models");
  list->footer("Example:\n  epochcost models list");
  list->callback([run] { *run = List; });

  auto o = std::make_shared<ShowOptions>();
  CLI::App* show = models->add_subcommand(
      "show", "Per-layer table: output shape, parameters, FLOPs and activation memory");
  show->add_option("MODEL", o->model, "Zoo name, or a .onnx, Keras .json or epochcost .json file")
      ->required();
  show->add_option("--batch", o->batch, "Samples per step (default 1)");
  show->add_option("--precision", o->precision,
                   "fp32 (default), bf16, fp16, or amp / amp-bf16 (16-bit activations, fp32 "
                   "weights)");
  show->add_option("--param", o->params, "Set a model parameter, NAME=INTEGER (repeatable)");
  show->add_option("--optimizer", o->lowering.optimizer,
                   "The optimizer whose state the training memory counts: sgd, momentum, "
                   "rmsprop, adam, adamw or adadelta (default: the model's, else sgd)");
  show->add_flag("--json", o->json, "Print JSON instead of a table");
  show->footer(
      "Examples:\n  epochcost models show resnet50 --batch 32\n"
      "  epochcost models show imdb_fasttext --param max_features=1200000 --json\n"
      "  epochcost models show model.onnx");
  show->callback([run, o] { *run = [o] { return Show(*o); }; });

  auto p = std::make_shared<ShowOptions>();
  CLI::App* ops = models->add_subcommand(
      "ops", "The op signatures of one training step, merged, with how often each runs");
  ops->add_option("MODEL", p->model, "Zoo name or model file")->required();
  ops->add_option("--batch", p->batch, "Samples per step (default 1)");
  ops->add_option("--param", p->params, "Set a model parameter, NAME=INTEGER (repeatable)");
  ops->add_flag("--forward-only", p->forward_only, "The forward pass alone (inference)");
  AddLoweringFlags(ops, &p->lowering);
  ops->footer("Example:\n  epochcost models ops mnist_cnn --batch 128");
  ops->callback([run, p] { *run = [p] { return Ops(*p); }; });
}

}  // namespace epochcost::cli
