#pragma once
#include <array>
#include <cstdint>

namespace ugks {
/// Floating-point type of the solver state (double throughout).
using real_t = double;
/// Index over cells, faces and phase-space points: 64-bit from day one (cells x velocities > 2^31).
using index_t = std::int64_t;
/// A point or vector in physical or velocity space; unused components are zero.
using Vec3 = std::array<double, 3>;
}  // namespace ugks
