#include <omp.h>
#include <unistd.h>

#include <string>

#include "ugks/device/device.hpp"

namespace ugks::device {

const char* backend_name() { return "OpenMP"; }
int device_count() { return 0; }
int bind(int) { return -1; }
std::string device_name() {
    return "host (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
}

void memory_info(std::size_t& free_bytes, std::size_t& total_bytes) {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long avail = sysconf(_SC_AVPHYS_PAGES);
    const long page = sysconf(_SC_PAGE_SIZE);
    total_bytes = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
    free_bytes = static_cast<std::size_t>(avail) * static_cast<std::size_t>(page);
}

void fence(const char*) {}

bool profiler_start() { return false; }
void profiler_stop() {}

}  // namespace ugks::device
