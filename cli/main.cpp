// The `epochcost` command: parses the command line (CLI11), runs the chosen subcommand, maps
// errors to exit codes. Subcommands live in *_command.cpp; this file only wires them.
#include <array>
#include <iostream>

#include "cli/commands.h"

namespace epochcost::cli {

int ReportError(const Status& status) {
  std::cerr << "epochcost: error: " << status.message() << "\n";
  return kExitError;
}

namespace {

using RegisterFn = void (*)(CLI::App&, CommandFn*);
constexpr std::array<RegisterFn, 9> kCommands = {
    RegisterModelsCommand,    RegisterCatalogCommand,   RegisterProfileCommand,
    RegisterPredictCommand,   RegisterRecommendCommand, RegisterServeCommand,
    RegisterScheduleCommand,  RegisterValidateCommand,  RegisterCalibrateCommand};

int Main(int argc, char** argv) {
  CLI::App app{
      "epochcost: which machine to rent to train a model, and what each epoch costs and takes"};
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 success, 1 bad input or failed operation, 2 usage error.\n"
      "Example:\n  epochcost models show resnet50 --batch 32");
  CommandFn run;
  for (RegisterFn reg : kCommands) reg(app, &run);
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
