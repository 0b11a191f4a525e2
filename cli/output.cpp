// Atomic output files and scenario loading for the command line.
#include "output.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "ringlab/topology/error.hpp"

namespace ringlab::cli {

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty() || path == "-") {
    write(std::cout);
    std::cout.flush();
    return;
  }
  // A device or pipe (/dev/null, /dev/stdout, a FIFO) is written in place: a rename would replace it.
  std::error_code status_error;
  if (std::filesystem::is_other(std::filesystem::status(path, status_error))) {
    std::ofstream out(path, std::ios::binary);
    if (out) write(out);
    out.flush();
    if (!out) throw InputError(path, "", "cannot write the output file");
    return;
  }
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, "", "cannot create the output file (does the directory exist?)");
    write(out);
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      throw InputError(path, "", "cannot write the output file");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw InputError(path, "", "cannot move the output file into place: " + ec.message());
  }
}

Scenario load_scenario_or_default(const std::string& path) {
  if (path.empty()) return default_scenario();
  return load_scenario(path);
}

}  // namespace ringlab::cli
