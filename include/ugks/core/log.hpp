#pragma once
#include <fmt/format.h>

#include <cstdio>
#include <string>

namespace ugks::log {

/// Global logging state: rank 0 prints info lines unless --quiet.
struct State {
    int rank = 0;
    bool quiet = false;
};
State& state();

/// Info line on rank 0 (stdout), suppressed by --quiet.
template <class... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
    if (state().rank != 0 || state().quiet) return;
    std::fputs(fmt::format(f, std::forward<Args>(args)...).c_str(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

/// Error/warning line on rank 0 (stderr), never suppressed.
template <class... Args>
void error(fmt::format_string<Args...> f, Args&&... args) {
    if (state().rank != 0) return;
    std::fputs(fmt::format(f, std::forward<Args>(args)...).c_str(), stderr);
    std::fputc('\n', stderr);
    std::fflush(stderr);
}

}  // namespace ugks::log
