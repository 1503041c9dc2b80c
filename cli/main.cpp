// The `epochcost` command: parses the command line (CLI11), runs the chosen subcommand, maps
// errors to exit codes. Subcommands live in *_command.cpp; this file only wires them.
#include <array>
#include <cmath>
#include <iostream>

#include "cli/commands.h"

namespace epochcost::cli {

int ReportError(const Status& status) {
  std::cerr << "epochcost: error: " << status.message() << "\n";
  return kExitError;
}

Status CheckCounts(const std::vector<CountOption>& counts) {
  for (const CountOption& c : counts) {
    if (c.option->count() == 0) continue;
    const auto value = c.option->as<int64_t>();
    if (value > c.max)
      return Status::InvalidArgument(c.option->get_name() + " must be at most " +
                                     std::to_string(c.max) + ", got " + std::to_string(value));
    if (value >= c.min) continue;
    return Status::InvalidArgument(c.option->get_name() +
                                   (c.min > 0 ? " must be positive" : " must not be negative") +
                                   ", got " + std::to_string(value));
  }
  return Status::Ok();
}

namespace {

using RegisterFn = void (*)(CLI::App&, CommandFn*);
constexpr std::array<RegisterFn, 9> kCommands = {
    RegisterModelsCommand,   RegisterCatalogCommand,   RegisterProfileCommand,
    RegisterPredictCommand,  RegisterRecommendCommand, RegisterServeCommand,
    RegisterScheduleCommand, RegisterValidateCommand,  RegisterCalibrateCommand};

// CLI11 reads "nan" and "inf" into a double option, and no range check written as `v <= 0`
// refuses NaN: every number option of every subcommand must be finite.
void RequireFiniteNumbers(CLI::App& app) {
  static const CLI::Validator kFinite(
      [](std::string& text) -> std::string {
        double v = 0;
        if (CLI::detail::lexical_cast(text, v) && !std::isfinite(v))
          return "'" + text + "' is not a finite number";
        return "";
      },
      "", "finite");
  for (CLI::Option* o : app.get_options())
    if (o->get_type_name() == "FLOAT") o->check(kFinite);
  for (CLI::App* sub : app.get_subcommands({})) RequireFiniteNumbers(*sub);
}

int Main(int argc, char** argv) {
  CLI::App app{
      "epochcost: which machine to rent to train a model, and what each epoch costs and takes"};
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 success, 1 bad input or failed operation, 2 usage error.\n"
      "Example:\n  epochcost models show resnet50 --batch 32");
  CommandFn run;
  for (RegisterFn reg : kCommands) reg(app, &run);
  RequireFiniteNumbers(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "epochcost: usage error: " << e.what() << " (see --help)\n";
    return kExitUsage;
  }
  return run ? run() : kExitUsage;
}

}  // namespace
}  // namespace epochcost::cli

int main(int argc, char** argv) { return epochcost::cli::Main(argc, argv); }
