#include "ugks/core/log.hpp"

namespace ugks::log {
State& state() {
    static State s;
    return s;
}
}  // namespace ugks::log
