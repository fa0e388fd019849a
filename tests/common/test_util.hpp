#pragma once
#include <functional>
#include <string>

namespace ugks::test {
/// A fresh temporary directory (under $TMPDIR or /tmp), same path on every rank of MPI_COMM_WORLD.
std::string temp_dir(const std::string& tag);
/// Write text to a file (rank 0 writes; all ranks wait).
void write_file(const std::string& path, const std::string& text);
/// Path of a file under tests/data.
std::string data_path(const std::string& name);
/// Run a shell command, capture stdout+stderr; returns the exit code (WEXITSTATUS).
int run_command(const std::string& cmd, std::string& output);
/// The message of the InputError that f throws, or "<no InputError>".
std::string input_error_of(const std::function<void()>& f);
}  // namespace ugks::test
