// libFuzzer target: command-line overrides (`--set key.path=value`, Config::apply_override) on a
// fixed valid case. The bytes are split at NUL bytes (which no command-line argument can hold) into
// assignments; a piece whose first byte is a control character 0x01-0x1f takes its key from the
// table of real key paths below and the rest of the piece as its value, any other piece is an
// assignment as it is. Values are arbitrary bytes: YAML aliases and anchors, flow collections,
// invalid UTF-8. After the overrides the case goes through the case-file parse path; every step
// must succeed or raise InputError (exit 2), anything else is a bug. With UGKS_FUZZ_PRINT=1 each
// assignment and the outcome are printed.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

namespace {

// A valid case with every kind of section the overrides can reach (tests/cli/cases/base.yaml).
const char* const kBase =
    "name: fuzz_base\n"
    "gas:\n"
    "  Kn: 0.1\n"
    "mesh:\n"
    "  source: box\n"
    "  box: {dim: 2, cells: [6, 4], lo: [0, 0], hi: [1.5, 1]}\n"
    "velocity: {type: gauss_hermite, counts: [8, 8]}\n"
    "boundaries:\n"
    "  xmin: {type: diffuse_wall, T: 1.0}\n"
    "  xmax: {type: diffuse_wall, T: 1.0}\n"
    "  ymin: {type: diffuse_wall, T: 1.0}\n"
    "  ymax: {type: diffuse_wall, T: 1.0, U: [0.2, 0.0]}\n"
    "initial:\n"
    "  regions:\n"
    "    - {lo: [0, 0], hi: [0.5, 1], rho: 2}\n"
    "parallel:\n"
    "  block_size: 16\n"
    "output:\n"
    "  directory: fuzz_out\n"
    "  probes:\n"
    "    - {name: centre, from: [0.75, 0.0], to: [0.75, 1.0], points: 5}\n";

// Selected by the first byte (0x01-0x1f) of a piece.
const char* const kKeyPaths[] = {"name",
                                 "gas",
                                 "gas.Kn",
                                 "mesh",
                                 "mesh.source",
                                 "mesh.box",
                                 "mesh.box.dim",
                                 "mesh.box.cells",
                                 "mesh.box.cells.1",
                                 "velocity",
                                 "velocity.type",
                                 "velocity.counts",
                                 "boundaries",
                                 "boundaries.xmin",
                                 "boundaries.ymax.U",
                                 "initial.regions",
                                 "initial.regions.0.hi",
                                 "initial.regions.1",
                                 "time",
                                 "time.steps",
                                 "time.mode",
                                 "numerics.cfl",
                                 "numerics.limiter",
                                 "parallel",
                                 "parallel.block_size",
                                 "output.probes",
                                 "output.probes.0.points",
                                 "output.probes.1",
                                 "output.surface",
                                 "forces.acceleration",
                                 "checkpoint.every"};

std::vector<std::string> assignments(const std::uint8_t* data, std::size_t size) {
    constexpr std::size_t kNumKeys = sizeof kKeyPaths / sizeof kKeyPaths[0];
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= size && out.size() < 16) {
        std::size_t end = start;
        while (end < size && data[end] != 0) ++end;
        std::string piece(reinterpret_cast<const char*>(data) + start, end - start);
        if (!piece.empty() && static_cast<unsigned char>(piece[0]) < 0x20)
            piece = std::string(kKeyPaths[(static_cast<unsigned char>(piece[0]) - 1) % kNumKeys]) +
                    "=" + piece.substr(1);
        if (!piece.empty()) out.push_back(piece);
        start = end + 1;
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool print = std::getenv("UGKS_FUZZ_PRINT") != nullptr;
    try {
        ugks::Config cfg = ugks::Config::from_string(kBase, "base.yaml");
        for (const auto& a : assignments(data, size)) {
            if (print) std::fprintf(stderr, "---- --set %s\n", a.c_str());
            cfg.apply_override(a);
        }
        const int dims = ugks::fuzz::parse_case(cfg);
        if (print) std::fprintf(stderr, "---- accepted (for %d of 3 mesh dimensions)\n", dims);
    } catch (const ugks::InputError& e) {
        if (print) std::fprintf(stderr, "---- InputError: %s\n", e.what());
    }
    return 0;
}
