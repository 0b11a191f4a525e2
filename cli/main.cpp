// ringlab: the command line. Subcommands live in topo_command.cpp, import_command.cpp, simulate_command.cpp
// (simulate, schedule), train_command.cpp, sweep_command.cpp and compare_command.cpp.
// Exit codes (commands.hpp): 0 success, 2 bad input (scenario or sweep file, option value), 1 internal
// error, 3 a sweep whose output was written but some of whose points failed.
#include <exception>
#include <iostream>
#include <new>

#include "commands.hpp"
#include "manual.hpp"
#include "names.hpp"
#include "ringlab/sim/process_memory.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/units.hpp"

using ringlab::cli::kExitBadInput;
using ringlab::cli::kExitInternal;

int main(int argc, char** argv) {
  ringlab::sim::keep_large_blocks_mapped();
  CLI::App app{"ringlab: predict, plan and verify gradient synchronisation on GPU clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(ringlab::cli::kVersionText));
  ringlab::cli::add_topo_commands(app);
  ringlab::cli::add_simulate_command(app);
  ringlab::cli::add_train_command(app);
  ringlab::cli::add_sweep_command(app);
  ringlab::cli::add_compare_command(app);
  ringlab::cli::add_calibrate_command(app);
  ringlab::cli::add_plan_command(app);
  // Hidden (no group): the build writes the man page and completion scripts with these.
  app.add_flag_callback(
         "--man", [&app] { ringlab::cli::write_man_page(std::cout, app); throw CLI::Success(); },
         "print the man page (roff)")
      ->group("");
  app.add_option_function<std::string>(
         "--completion",
         [&app](const std::string& shell) {
           if (shell == "bash") ringlab::cli::write_bash_completion(std::cout, app);
           else ringlab::cli::write_zsh_completion(std::cout, app);
           throw CLI::Success();
         },
         "print the completion script for bash or zsh")
      ->check(ringlab::cli::one_of("shell", {"bash", "zsh"}))
      ->group("");
  try {
    ringlab::cli::check_subcommand_names(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  } catch (const ringlab::cli::ExitStatus& e) {
    return e.code;
  } catch (const ringlab::InputError& e) {
    for (const ringlab::Problem& p : e.problems()) std::cerr << "ringlab: error: " << p.to_string() << '\n';
    return kExitBadInput;
  } catch (const ringlab::RangeError& e) {  // a quantity the inputs imply that the clock or counters cannot hold
    std::cerr << "ringlab: error: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const std::bad_alloc&) {  // inputs that imply more state than memory holds
    std::cerr << "ringlab: error: out of memory: the run needs more memory than this process can allocate; "
                 "expected a smaller cluster, or fewer sizes, channels or sweep points\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "ringlab: internal error: " << e.what() << '\n';
    return kExitInternal;
  }
  return 0;
}
