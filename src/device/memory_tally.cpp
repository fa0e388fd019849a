#include "ugks/device/array.hpp"

namespace ugks {
MemoryTally& memory_tally() {
    static MemoryTally t;
    return t;
}
}  // namespace ugks
