// libFuzzer target: the case-file reader. Any byte string must either parse or raise InputError
// (exit 2 in the program); any other exception, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        ugks::Config cfg = ugks::Config::from_string(text, "fuzz.yaml");
        ugks::fuzz::parse_case(cfg);
    } catch (const ugks::InputError&) {
    }
    return 0;
}
