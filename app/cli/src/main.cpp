// remat: the command-line front end (docs/architecture.md section 7).

#include <exception>
#include <iostream>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "TerminalOutput.hpp"

namespace {

int runRemat(int argc, char** argv) {
  using namespace remat::cli;
  const TerminalOutputGuard terminal;
  CLI::App app{"Remat: plan activation recomputation for training (Kusumoto et al., NeurIPS 2019)", "remat"};
  app.set_version_flag("--version", "remat 0.1.0");
  app.require_subcommand(1);
  Runner run;
  addInfoCommand(app, run);
  addSolveCommand(app, run);
  addCompareCommand(app, run);
  addMinBudgetCommand(app, run);
  addSweepCommand(app, run);
  addStudyCommand(app, run);
  addMaxBatchCommand(app, run);
  addRenderCommand(app, run);
  addProfileCommand(app, run);
  addValidateCommand(app, run);
  addConvertCommand(app, run);
  addSolversCommand(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsage;
  }
  // No exception leaves main: input problems, usage problems and bugs each get their exit code.
  try {
    return run();
  } catch (const CliError& e) {
    std::cerr << "remat: " << (e.code() == kUsage ? "usage error" : "error") << ": " << e.what() << '\n';
    return e.code();
  } catch (const std::exception& e) {
    std::cerr << "remat: internal error: " << e.what() << '\n';
    return kInternal;
  } catch (...) {
    std::cerr << "remat: internal error: unknown exception\n";
    return kInternal;
  }
}

}  // namespace

// Nothing escapes: building the command line can throw too (a bad_alloc), and that is an internal error.
int main(int argc, char** argv) {
  try {
    return runRemat(argc, argv);
  } catch (...) {
    std::cerr << "remat: internal error while starting\n";
    return remat::cli::kInternal;
  }
}
