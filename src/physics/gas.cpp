#include "ugks/physics/gas.hpp"

#include <cmath>

#include "ugks/io/config.hpp"

namespace ugks {

double mu_ref_from_kn(double Kn, double alpha, double omega_r) {
    const double pi = 3.14159265358979323846;
    return 5.0 * (alpha + 1.0) * (alpha + 2.0) * std::sqrt(pi) /
           (4.0 * alpha * (5.0 - 2.0 * omega_r) * (7.0 - 2.0 * omega_r)) * Kn;
}

GasModel parse_gas(Config& cfg) {
    GasModel g;
    g.Kn = cfg.get<double>("gas.Kn");
    cfg.check_range("gas.Kn", g.Kn, 0.0, HUGE_VAL, true, false);
    g.kn_definition = cfg.get_enum_or("gas.kn_definition", {"hs", "vhs"}, "hs");
    g.omega = cfg.get_or<double>("gas.omega", 0.81);
    cfg.check_range("gas.omega", g.omega, 0.5, 1.0);
    g.alpha = cfg.get_or<double>("gas.alpha", 1.0);
    cfg.check_range("gas.alpha", g.alpha, 0.0, 2.0, true, false);
    g.Pr = cfg.get_or<double>("gas.Pr", 2.0 / 3.0);
    cfg.check_range("gas.Pr", g.Pr, 0.0, 1.0, true, false);
    g.K_int = cfg.get_or<int>("gas.K_int", 0);
    cfg.check_range("gas.K_int", g.K_int, 0, 10);
    // UGKS convention (decision U9): the reference molecular model in the Kn -> mu mapping is hard-sphere
    // (alpha = 1, omega_r = 0.5) unless kn_definition is vhs, which uses the gas's own omega and alpha.
    if (g.kn_definition == "hs")
        g.mu_ref = mu_ref_from_kn(g.Kn, 1.0, 0.5);
    else
        g.mu_ref = mu_ref_from_kn(g.Kn, g.alpha, g.omega);
    return g;
}

}  // namespace ugks
