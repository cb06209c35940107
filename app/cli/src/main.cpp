// remat: the command-line front end (docs/architecture.md section 7).

#include <exception>
#include <iostream>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "TerminalOutput.hpp"
#include "remat/io/Interruption.hpp"

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
  checkEveryValue(app);
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
  // No exception leaves main: input problems, usage problems and bugs each get their exit code. A command
  // stopped by a signal says nothing of its own: the stop's cleanup ends it with 128 + the signal.
  try {
    const int code = run();
    remat::io::awaitInterruption();
    flushStdout();  // here, while the reason of a failed write is still known
    return code;
  } catch (const OutputError& e) {
    remat::io::awaitInterruption();
    std::cerr << "remat: " << e.what() << '\n';
    return e.code();
  } catch (const CliError& e) {
    remat::io::awaitInterruption();
    std::cerr << "remat: " << (e.code() == kUsage ? "usage error" : "error") << ": " << e.what() << '\n';
    return e.code();
  } catch (const std::exception& e) {
    remat::io::awaitInterruption();
    std::cerr << "remat: internal error: " << e.what() << '\n';
    return kInternal;
  } catch (...) {
    remat::io::awaitInterruption();
    std::cerr << "remat: internal error: unknown exception\n";
    return kInternal;
  }
}

}  // namespace

// Nothing escapes: building the command line can throw too (a bad_alloc), and that is an internal error.
// Every byte written counts: an answer lost on its way to standard output (a full disk) is an error,
// checked here once for every command, after it returns.
int main(int argc, char** argv) {
  // SIGINT and SIGTERM stop remat at once, its children and temporaries with it (docs/cli.md, Signals).
  remat::io::stopCleanlyOnSignals("remat");
  int code = remat::cli::kInternal;
  try {
    code = runRemat(argc, argv);
  } catch (...) {
    std::cerr << "remat: internal error while starting\n";
  }
  // Exit code 3 already tells of a failed write (and an OutputError has said which).
  if (const auto problem = remat::cli::closeStdout(); problem && code != remat::cli::kInput) {
    std::cerr << "remat: error writing standard output: " << *problem << '\n';
    return remat::cli::kInput;
  }
  return code;
}
