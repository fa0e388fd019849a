// libFuzzer target: the case-file reader. Any byte string must either parse or raise InputError
// (exit 2 in the program); any other exception, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <string>

#include "ugks/app/case_setup.hpp"
#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/mesh/sources.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        ugks::Config cfg = ugks::Config::from_string(text, "fuzz.yaml");
        ugks::CaseSetup setup;
        ugks::parse_case_sections(cfg, setup);
        const ugks::MeshConfig mc = ugks::parse_mesh_config(cfg);
        (void)mc;
        for (int dim = 1; dim <= 3; ++dim) {
            ugks::Config c = cfg;
            ugks::CaseSetup s = setup;
            try {
                ugks::parse_velocity_section(c, s, dim);
                c.check_unused();
            } catch (const ugks::InputError&) {
            }
        }
    } catch (const ugks::InputError&) {
    }
    return 0;
}
