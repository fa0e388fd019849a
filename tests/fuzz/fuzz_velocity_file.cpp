// libFuzzer target: the velocity point-file reader ("u_x [u_y [u_z]] w" lines) in 1, 2 and 3
// dimensions. Any input must either give a grid or raise InputError.
#include <cstdint>

#include "fuzz_common.hpp"
#include "ugks/core/error.hpp"
#include "ugks/velocity/velocity_grid.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ugks::fuzz::InputFile file(data, size, ".dat");
    if (!file.ok()) return 0;
    for (int dim = 1; dim <= 3; ++dim) {
        try {
            const ugks::VelocityGrid g = ugks::read_velocity_file(file.path(), dim);
            (void)g;
        } catch (const ugks::InputError&) {
        }
    }
    return 0;
}
