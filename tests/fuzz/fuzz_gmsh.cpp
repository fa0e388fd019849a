// libFuzzer target: the Gmsh 4.1 reader (ASCII and binary) with face building and mesh validation.
// Any input must either give a valid mesh or raise InputError.
#include <cstdint>

#include "fuzz_common.hpp"
#include "ugks/core/error.hpp"
#include "ugks/mesh/mesh.hpp"
#include "ugks/mesh/sources.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ugks::fuzz::InputFile file(data, size, ".msh");
    if (!file.ok()) return 0;
    try {
        const ugks::Mesh mesh = ugks::read_gmsh(file.path());
        (void)mesh;
    } catch (const ugks::InputError&) {
    }
    return 0;
}
