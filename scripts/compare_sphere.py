#!/usr/bin/python3
"""Compare a sphere run (cases/sphere_*) with DSMC, free-molecular and continuum references.

Usage:
  scripts/compare_sphere.py RUN_DIR [--dsmc DIR|none] [--plots DIR] [--json FILE|-] [--bin DEG]
                            [--theta-from centroid|normal] [--tw-over-tinf X] [--mach M] [--label TEXT]
                            [--velocity-grid CHECKPOINT.h5] [--check-fm CD_TOL CP_TOL CF_TOL CH_TOL]
                            [--check-fm-continuous CD_TOL CP_TOL CF_TOL CH_TOL] [--fields FIELDS.h5]
                            [--accommodation ALPHA]
  scripts/compare_sphere.py --self-check

RUN_DIR is a run's output.directory: surface_final.csv (or surface_final.h5), optionally summary.json,
history.csv (C_D and residual history), probes_stagnation_line.csv and a checkpoint_*.h5 (its velocity set). The wall faces are binned by the polar angle theta of their centroid, measured from
the upstream stagnation point (0 deg) about the sphere centre (the origin), in DEG-wide bins (default 2, as the
DSMC), area-weighted. Cp = (p_w - p_inf)/q_inf, Cf = meridional shear (+ downstream, away from the
stagnation point)/q_inf, Ch = q_w/(0.5 rho_inf U_inf^3), C_D = F_x/(q_inf pi R^2), as in
../shared/reference/sphere_supersonic/sparta_ma4.25_kn0.121/SOURCE.md. A quarter (or half) domain is detected
from the face centroids and its force multiplied by 4 (2). R = the largest wall-node radius (surface_final.h5)
or, from the CSV alone, the largest face-centroid radius (slightly below R on a faceted sphere).

Comparisons:
 (a) DSMC (SPARTA, Kn 0.121): per non-empty bin, errors against the DSMC bin with the same theta range (with
     --bin 2 the bins coincide; otherwise the DSMC profile averaged over the bin). Norms per coefficient X:
     e_max = max |X - X_dsmc| / max |X_dsmc| and e_L2 = sqrt(sum A (X - X_dsmc)^2 / sum A) / max |X_dsmc|
     (A = wall area of the bin; max |X_dsmc| over all 90 DSMC bins), and the relative C_D difference.
 (b) free-molecular closed forms (flat element with Maxwell's accommodation --accommodation ALPHA, default 1:
     full diffuse reflection; speed ratio s and T_w/T_inf): per face at the face's own normal (exact for a flat face: only the solver's velocity
     discretization and boundary treatment differ) and binned like the run; C_D against the sum of the
     per-face closed forms over the same faces and against the sphere formula of
     ../shared/reference/sphere_supersonic/SOURCE.md. Norms: max |X - X_fm| / max |X_fm| over the faces.
 (c) continuum: stagnation Cp against the Rayleigh pitot formula and the shock stand-off distance (from the
     probes on the stagnation line: where rho/rho_inf first reaches half way to the Rankine-Hugoniot jump, and
     the same for T) against Billig (1967), Delta/R = 0.143 exp(3.24/M^2). Meaningful for Kn <= 0.005 only; for
     rarefied runs the numbers are printed as information.

--fields FIELDS.h5 (a fields_*.h5 of the run: cells/centroid, cells/volume, mesh/nodes, mesh/topology (XDMF mixed),
fields/Mach, fields/T): Mach and T/T_inf on the symmetry plane z = 0 (issue 5's "Mach and temperature on the
symmetry plane"). The plane's cells are those with a face on z = 0: at least 3 of their nodes have |z| <= 1e-9 x the
mesh extent (exact for the solver's tetrahedra, prisms, pyramids and hexahedra, independent of the cell size); if
the file has no usable topology, those with |z_centroid| < 0.5 volume^(1/3). Their values (cell averages) sit at the
centroids' (x, y). By axisymmetry the symmetry plane y = 0 is the same meridional plane: its cells (chosen the same
way) are drawn mirrored, at (x, -z), in the lower half, so the plot shows the whole meridian and the agreement of
the two halves checks the axisymmetry of the solution. Printed: max Mach and max T/T_inf on z = 0 and where
(x/R, y/R), and T/T_inf and Mach of the stagnation cell (the cell whose centroid is nearest to the stagnation point
(-R, 0, 0)). With --plots: PLOTS/sphere_symmetry_plane.png, Mach and T/T_inf as tricontourf on the Delaunay
triangulation of the (x, y) centroids, with the triangles across the body (centroid at r < R or an edge midpoint at
r < 0.9 R; the sphere's disc covers the rest) or much longer than the cells (an edge > 3 x the larger of its
vertices' cell sizes: the largest extent of the cell's nodes, else volume^(1/3)) masked; axes in units of R.

With --theta-from normal the faces are binned by the incidence angle of their normal instead (on a coarse faceted
sphere a face's loads follow its orientation, not its centroid position).

--check-fm: exit 1 unless the run matches the free-molecular closed forms evaluated with the run's discrete
velocities (from the checkpoint): |C_D/C_D,fm(faces) - 1| <= CD_TOL and the per-face max norms of Cp, Cf, Ch <=
CP_TOL, CF_TOL, CH_TOL, and the solver's force total equals the per-face sum to 1e-9; --check-fm-continuous: the
same against the continuous closed forms (used by the regression test of cases/sphere_fm).
--self-check: checks the flat-element formulas against a direct velocity-space quadrature and their sphere
integral against the closed-form sphere drag (to 1e-6); exit 1 on failure.
Bad input (missing files or columns, no wall faces) exits 2. Needs numpy (and h5py for .h5, matplotlib for
--plots): Debian python3-numpy, python3-h5py, python3-matplotlib; run with /usr/bin/python3.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ugks_units  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DSMC_DEFAULT = os.path.normpath(
    os.path.join(ROOT, "..", "shared", "reference", "sphere_supersonic", "sparta_ma4.25_kn0.121"))
GAMMA = 5.0 / 3.0  # monatomic gas


class BadInput(Exception):
    pass


# ---- closed forms ----------------------------------------------------------------------------------

def _erf(x):
    return np.vectorize(math.erf)(x)


def fm_element(cos_inc, s, tw, alpha=1.0):
    """Free-molecular coefficients of a flat element with Maxwell's accommodation alpha (the fraction alpha
    re-emitted diffusely at T_w, the rest reflected specularly: alpha = 1 full diffuse reflection).

    cos_inc = cosine of the angle between the free-stream velocity and the element's inward normal (the
    normal pointing into the body; 1 = head-on, < 0 = lee side); s = U/sqrt(2 R T_inf); tw = T_w/T_inf.
    Returns Cp = (p - p_inf)/q, Cf = tangential shear/q (along the free-stream's tangential projection),
    Ch = net energy flux into the element/(0.5 rho U^3). With beta = 1/sqrt(2 R T_inf), s_n = s cos_inc,
    chi = exp(-s_n^2) + sqrt(pi) s_n (1 + erf s_n) (incident number flux = n chi/(2 sqrt(pi) beta)):
      incident normal momentum p_i/q = [s_n exp(-s_n^2)/sqrt(pi) + (1/2 + s_n^2)(1 + erf s_n)]/s^2
      diffuse re-emission p_r/q     = sqrt(tw) chi/(2 s^2)       (Maxwellian at T_w, flux = incident flux)
      shear tau/q                   = chi s_t/(sqrt(pi) s^2)      (s_t = s sin_inc; re-emission carries none)
      energy E_i/(0.5 rho U^3)      = [(s^2 + 2) exp(-s_n^2) + sqrt(pi) s_n (s^2 + 5/2)(1 + erf s_n)]/(2 sqrt(pi) s^3)
      re-emitted E_r/(0.5 rho U^3)  = 2 tw chi/(2 sqrt(pi) s^3)   (2 k T_w per molecule, monatomic)
    and p_inf/q = 1/s^2. The specular part returns the incident normal momentum and all the energy and carries
    no shear, so (Schaaf & Chambre) p = (2 - alpha) p_i + alpha p_r, tau = alpha tau_i, E = alpha (E_i - E_r).
    """
    c = np.clip(np.asarray(cos_inc, dtype=float), -1.0, 1.0)
    sn = s * c
    st = s * np.sqrt(np.maximum(0.0, 1.0 - c * c))
    e = np.exp(-sn * sn)
    er = 1.0 + _erf(sn)
    spi = math.sqrt(math.pi)
    chi = e + spi * sn * er
    s2 = s * s
    cp = ((2.0 - alpha) * (sn * e / spi + (0.5 + sn * sn) * er) + alpha * 0.5 * math.sqrt(tw) * chi - 1.0) / s2
    cf = alpha * chi * st / (spi * s2)
    ch = alpha * ((s2 + 2.0) * e + spi * sn * (s2 + 2.5) * er - 2.0 * tw * chi) / (2.0 * spi * s2 * s)
    return cp, cf, ch


def fm_sphere_cd(s, tw, alpha=1.0):
    """Free-molecular sphere drag (diffuse, T_w), ../shared/reference/sphere_supersonic/SOURCE.md; with
    Maxwell's accommodation alpha only the re-emission term scales with alpha (the specular sphere's drag equals
    the incident part: Schaaf & Chambre; checked against the element integral by --self-check)."""
    return ((1 + 2 * s * s) * math.exp(-s * s) / (math.sqrt(math.pi) * s ** 3)
            + (4 * s ** 4 + 4 * s * s - 1) * math.erf(s) / (2 * s ** 4)
            + alpha * 2 * math.sqrt(math.pi) / (3 * s) * math.sqrt(tw))


def fm_sphere_integrals(s, tw, n=400, alpha=1.0):
    """C_D and the total heat load Q/(0.5 rho U^3 pi R^2) of the element formulas integrated over a sphere
    (Gauss-Legendre in theta, n points; at polar angle theta the incidence cosine is cos(theta))."""
    x, w = np.polynomial.legendre.leggauss(n)
    th = 0.5 * math.pi * (x + 1.0)
    w = 0.5 * math.pi * w
    cp, cf, ch = fm_element(np.cos(th), s, tw, alpha)
    # dA = 2 pi R^2 sin(theta) dtheta; x-force per area = p cos(theta) + tau sin(theta); / (q pi R^2)
    cd = 2.0 * np.sum(w * (cp * np.cos(th) + cf * np.sin(th)) * np.sin(th))
    cq = 2.0 * np.sum(w * ch * np.sin(th))
    return float(cd), float(cq)


def fm_element_quadrature(cos_inc, s, tw, n=200001, alpha=1.0):
    """The same element coefficients by direct quadrature over the incident half of the drifting Maxwellian
    (independent check of fm_element). Units: beta = 1, rho = 1 (f_1D(c) = exp(-(c - u)^2)/sqrt(pi))."""
    sn = s * cos_inc
    st = s * math.sqrt(max(0.0, 1.0 - cos_inc ** 2))
    c = np.linspace(0.0, abs(sn) + 12.0, n)  # normal velocity towards the element, c > 0
    f = np.exp(-(c - sn) ** 2) / math.sqrt(math.pi)
    trap = lambda y: float(np.sum(0.5 * (y[1:] + y[:-1]) * np.diff(c)))
    n_i = trap(c * f)                 # number flux
    p_i = trap(c * c * f)             # normal momentum flux
    tau = n_i * st                    # tangential momentum flux (tangential mean = s_t)
    ct2 = st * st + 1.0               # <c_t1^2 + c_t2^2> = s_t^2 + 2 * 1/2
    e_i = 0.5 * trap(c * f * (c * c + ct2))
    q = 0.5 * s * s                   # dynamic pressure (rho = 1, U = s)
    p_r = n_i * math.sqrt(math.pi * tw) / 2.0   # diffuse: flux n_i, Maxwellian at T_w (beta_w^2 = 1/tw)
    e_r = n_i * tw                    # 2 k T_w per molecule: 2 * tw/2
    # specular fraction 1 - alpha: the incident normal momentum once more, no shear, all the energy back
    p = (2.0 - alpha) * p_i + alpha * p_r
    return ((p - 0.5) / q, alpha * tau / q, alpha * (e_i - e_r) / (q * s))


def fm_element_discrete(normals, u, w, U, T_inf, tw, rho=1.0, alpha=1.0):
    """The flat-element free-molecular coefficients evaluated with a discrete velocity set (nodes u (N x 3),
    weights w), the way the solver's boundaries see it: incident = the free-stream Maxwellian at the nodes
    (u . n > 0, n = inward normal), re-emitted = alpha times the wall Maxwellian at T_w = tw T_inf at the nodes
    with the density of zero net mass flux, plus 1 - alpha times the free-stream Maxwellian at the mirror
    velocities u - 2 (u.n) n scaled to the incident mass flux (the solver's interpolated reflection, which is
    exact for a Maxwellian, and its mass scale). Returns Cp, Cf (along the tangential projection of U), Ch per
    normal. Nondimensional (sqrt(2 R T_ref) units): f = rho (pi T)^-3/2 exp(-|u - U|^2 / T)."""
    T_w = tw * T_inf
    f_inf = rho * (math.pi * T_inf) ** -1.5 * np.exp(-np.sum((u - U) ** 2, axis=1) / T_inf)
    m_w = (math.pi * T_w) ** -1.5 * np.exp(-np.sum(u * u, axis=1) / T_w)
    un = normals @ u.T  # faces x velocities
    inc = un > 0
    n_i = np.sum(np.where(inc, un * w * f_inf, 0.0), axis=1)
    rho_w = alpha * n_i / np.sum(np.where(inc, 0.0, -un * w * m_w), axis=1)
    f_out = rho_w[:, None] * m_w[None, :]
    if alpha < 1.0:
        ur = u[None, :, :] - 2.0 * un[:, :, None] * normals[:, None, :]  # faces x velocities x 3
        f_spec = rho * (math.pi * T_inf) ** -1.5 * np.exp(-np.sum((ur - U) ** 2, axis=2) / T_inf)
        c = n_i / np.sum(np.where(inc, 0.0, -un * w * f_spec), axis=1)
        f_out = f_out + (1.0 - alpha) * c[:, None] * f_spec
    f = np.where(inc, f_inf[None, :], f_out)
    P = (un * w * f) @ u                              # momentum flux into the wall
    e = 0.5 * np.sum(u * u, axis=1)
    qw = np.sum(un * w * f * e[None, :], axis=1)      # energy flux into the wall
    uu = float(np.linalg.norm(U))
    qd = 0.5 * rho * uu * uu
    p = np.sum(P * normals, axis=1)
    tau = P - p[:, None] * normals
    eU = U / uu
    cos_inc = normals @ eU
    t = eU[None, :] - cos_inc[:, None] * normals
    tn = np.linalg.norm(t, axis=1)
    t = np.where(tn[:, None] > 1e-12, t / np.maximum(tn, 1e-300)[:, None], 0.0)
    return (p - 0.5 * rho * T_inf) / qd, np.sum(tau * t, axis=1) / qd, qw / (qd * uu)


def find_velocity_grid(run_dir, path):
    """Velocity nodes and weights from a checkpoint (the given one or the newest in run_dir), or None."""
    if not path:
        cands = sorted(f for f in os.listdir(run_dir) if f.startswith("checkpoint_") and f.endswith(".h5"))
        if not cands:
            return None
        path = os.path.join(run_dir, cands[-1])
    if not os.path.isfile(path):
        raise BadInput(f"velocity grid file '{path}' not found")
    import h5py
    with h5py.File(path, "r") as f:
        if "velocity/u" not in f or "velocity/w" not in f:
            raise BadInput(f"'{path}' has no /velocity/u and /velocity/w (not a checkpoint?)")
        u = np.atleast_2d(f["velocity/u"][:])
        w = f["velocity/w"][:]
    if u.shape[1] != 3:
        raise BadInput(f"'{path}': the sphere comparison needs a 3D velocity grid, got {u.shape[1]} components")
    return u, w, path


def rayleigh_pitot_cp(M, g=GAMMA):
    p02 = ((g + 1) * M * M / 2) ** (g / (g - 1)) * ((g + 1) / (2 * g * M * M - (g - 1))) ** (1 / (g - 1))
    return (p02 - 1.0) / (0.5 * g * M * M), p02


def rh_ratios(M, g=GAMMA):
    r = (g + 1) * M * M / ((g - 1) * M * M + 2)
    t = (2 * g * M * M - (g - 1)) * ((g - 1) * M * M + 2) / ((g + 1) ** 2 * M * M)
    return r, t


def billig_standoff(M):
    return 0.143 * math.exp(3.24 / (M * M))


def self_check(verbose=True):
    s = 3.879701448994926
    tw = 302.0 / 42.72997032640949
    ok = True
    for s_, tw_, al in ((s, tw, 1.0), (1.0, 1.0, 1.0), (0.3, 2.5, 1.0), (s, tw, 0.5), (1.0, 1.0, 0.0)):
        for ci in (1.0, 0.7, 0.2, -0.3, -0.9):
            a = fm_element(np.array([ci]), s_, tw_, al)
            b = fm_element_quadrature(ci, s_, tw_, alpha=al)
            d = max(abs(float(a[k][0]) - b[k]) / max(1.0, abs(b[k])) for k in range(3))
            if d > 1e-7:
                ok = False
                print(f"self-check FAILED: element s {s_} tw {tw_} alpha {al} cos {ci}: closed {a} quadrature {b}")
        cd, _ = fm_sphere_integrals(s_, tw_, alpha=al)
        ref = fm_sphere_cd(s_, tw_, al)
        if verbose:
            print(f"self-check: s = {s_:.6f}, T_w/T_inf = {tw_:.6f}, accommodation {al:g}: integral of the element "
                  f"formulas C_D = {cd:.9f}, sphere formula {ref:.9f}, diff {cd - ref:.2e}")
        if abs(cd - ref) > 1e-6:
            ok = False
            print("self-check FAILED: sphere integral differs from the closed-form C_D by more than 1e-6")
    if verbose:
        print("self-check: element formulas vs velocity quadrature agree within 1e-7 max(1, |value|) (25 cases)" if ok
              else "self-check: FAILED")
    return ok


# ---- reading ---------------------------------------------------------------------------------------

def read_surface(run_dir):
    """Faces of the wall output: dict of arrays, the free-stream reference and R (largest node radius)."""
    csv = os.path.join(run_dir, "surface_final.csv")
    h5 = os.path.join(run_dir, "surface_final.h5")
    ref = {}
    R = None
    config = None
    if os.path.isfile(csv):
        header = None
        comments = []
        with open(csv) as fh:
            for line in fh:
                if line.startswith("#"):
                    comments.append(line[1:].strip())
                    continue
                header = line.strip().split(",")
                break
        if header is None:
            raise BadInput(f"{csv}: no header line")
        need = ["x", "y", "z", "nx", "ny", "nz", "area", "p", "tau_x", "tau_y", "tau_z", "q", "Cp", "Ch"]
        missing = [c for c in need if c not in header]
        if missing:
            raise BadInput(f"{csv}: missing columns {missing}")
        data = np.genfromtxt(csv, delimiter=",", comments="#", skip_header=0, names=None)
        data = np.atleast_2d(data)
        if data.shape[0] and np.all(np.isnan(data[0])):
            data = data[1:]
        faces = {name: data[:, header.index(name)] for name in header}
        for c in comments:
            for tok in c.replace(":", " ").split():
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    try:
                        ref[k] = [float(t) for t in v.strip(",").split(",")]
                    except ValueError:
                        pass
    elif os.path.isfile(h5):
        import h5py
        with h5py.File(h5, "r") as f:
            faces = {}
            c = f["faces/centroid"][:]
            n = f["faces/normal"][:]
            for i, k in enumerate("xyz"):
                faces[k] = c[:, i]
                faces["n" + k] = n[:, i]
            faces["area"] = f["faces/area"][:]
            for k in ("p", "q", "Cp", "Ch"):
                faces[k] = f["fields/" + k][:]
            t = f["fields/tau"][:]
            for i, k in enumerate("xyz"):
                faces["tau_" + k] = t[:, i]
    else:
        raise BadInput(f"{run_dir}: neither surface_final.csv nor surface_final.h5 (did the run finish?)")
    if os.path.isfile(h5):
        import h5py
        with h5py.File(h5, "r") as f:
            for k in ("rho_inf", "p_inf", "U_inf", "q_dyn"):
                if k in f.attrs:
                    ref[k] = [float(v) for v in np.atleast_1d(f.attrs[k])]
            if "mesh/nodes" in f:
                R = float(np.max(np.linalg.norm(f["mesh/nodes"][:], axis=1)))
            if "config" in f.attrs:
                config = f.attrs["config"]
                if isinstance(config, bytes):
                    config = config.decode()
    for k in ("rho_inf", "p_inf", "U_inf"):
        if k not in ref:
            raise BadInput(f"{run_dir}: the surface output has no '{k}' (reference state)")
    # Everything below works in the solver's nondimensional units: undo output.units: si.
    sc = ugks_units.run_scales(run_dir)
    for k, q in (("x", "length"), ("y", "length"), ("z", "length"), ("area", "area"), ("p", "pressure"),
                 ("tau_x", "pressure"), ("tau_y", "pressure"), ("tau_z", "pressure"), ("q", "heat_flux")):
        faces[k] = np.asarray(faces[k]) / sc[q]
    for k, q in (("rho_inf", "density"), ("p_inf", "pressure"), ("U_inf", "speed"), ("q_dyn", "pressure")):
        if k in ref:
            ref[k] = [v / sc[q] for v in ref[k]]
    if R is not None:
        R /= sc["length"]
    if len(faces["area"]) == 0:
        raise BadInput(f"{run_dir}: the surface output has no wall faces")
    if not np.any(faces["p"] != 0):
        raise BadInput(f"{run_dir}: all wall pressures are zero (surface written before any step, e.g. by a "
                       "restart with no steps; run at least one step)")
    if R is None:
        R = float(np.max(np.sqrt(faces["x"] ** 2 + faces["y"] ** 2 + faces["z"] ** 2)))
    return faces, ref, R, config


def wall_temperature_ratio(config, ref):
    """T_w/T_inf from the resolved configuration (first diffuse wall; far field T)."""
    if not config:
        return None
    try:
        import yaml
        cfg = yaml.safe_load(config)
        b = cfg.get("boundaries", {})
        tw = next(v["T"] for v in b.values() if v.get("type") == "diffuse_wall")
        tinf = next((v["T"] for v in b.values() if v.get("type") in ("far_field", "inflow")), None)
        if tinf is None:
            tinf = cfg.get("initial", {}).get("T", 1.0)
        return float(tw) / float(tinf)
    except Exception:
        return None


def read_dsmc(d):
    path = os.path.join(d, "surface_profiles.csv")
    if not os.path.isfile(path):
        raise BadInput(f"DSMC data '{path}' not found (--dsmc DIR)")
    with open(path) as fh:
        lines = [l for l in fh if not l.startswith("#")]
    header = lines[0].strip().split(",")
    arr = np.array([[float(v) for v in l.split(",")] for l in lines[1:] if l.strip()])
    out = {h: arr[:, i] for i, h in enumerate(header)}
    js = os.path.join(d, "summary.json")
    out["summary"] = json.load(open(js)) if os.path.isfile(js) else {}
    st = os.path.join(d, "stagnation_line.csv")
    if os.path.isfile(st):
        a = np.loadtxt(st, delimiter=",", comments="#", skiprows=2)
        out["stag"] = a
    return out


# ---- processing ------------------------------------------------------------------------------------

def face_quantities(faces, ref, R):
    U = np.array(ref["U_inf"])
    u = float(np.linalg.norm(U))
    if not u > 0:
        raise BadInput("free-stream speed is zero: the sphere comparison needs a far-field/inflow velocity")
    e = U / u
    rho, p_inf = ref["rho_inf"][0], ref["p_inf"][0]
    q = 0.5 * rho * u * u
    T_inf = 2.0 * p_inf / rho  # nondimensional: p = rho T / 2
    s = u / math.sqrt(T_inf)
    X = np.stack([faces["x"], faces["y"], faces["z"]], axis=1)
    N = np.stack([faces["nx"], faces["ny"], faces["nz"]], axis=1)  # into the body
    tau = np.stack([faces["tau_x"], faces["tau_y"], faces["tau_z"]], axis=1)
    A = faces["area"]
    d = X / np.linalg.norm(X, axis=1)[:, None]
    theta = np.degrees(np.arccos(np.clip(-(d @ e), -1, 1)))  # polar angle of the centroid from the stagnation pt
    cos_inc = N @ e  # incidence cosine of the face (inward normal vs free stream)
    t = e[None, :] - cos_inc[:, None] * N
    tn = np.linalg.norm(t, axis=1)
    t = np.where(tn[:, None] > 1e-12, t / np.maximum(tn, 1e-300)[:, None], 0.0)
    cf = np.sum(tau * t, axis=1) / q
    cp = (faces["p"] - p_inf) / q
    ch = faces["q"] / (q * u)
    fx = float(np.sum(A * (faces["p"] * cos_inc + tau @ e)))
    # symmetry factor: quarter (y, z >= 0), half (y >= 0 or z >= 0) or full sphere
    tol = 1e-9 * R
    half_y = np.all(X[:, 1] >= -tol)
    half_z = np.all(X[:, 2] >= -tol)
    factor = (2 if half_y else 1) * (2 if half_z else 1)
    proj = float(np.sum(A * np.maximum(cos_inc, 0.0))) * factor  # faceted frontal area
    return dict(U_dir=e.tolist(), theta=theta, theta_normal=np.degrees(np.arccos(np.clip(cos_inc, -1, 1))), cos_inc=cos_inc, area=A, Cp=cp, Cf=cf, Ch=ch, s=s, q=q, u=u, T_inf=T_inf,
                Fx=fx * factor, factor=factor, CD=fx * factor / (q * math.pi * R * R),
                CD_faceted=fx * factor / (q * proj), frontal_faceted=proj, R=R,
                Q=float(np.sum(A * faces["q"])) * factor)


def bin_profile(theta, area, values, width):
    nb = int(round(180.0 / width))
    idx = np.clip((theta / width).astype(int), 0, nb - 1)
    asum = np.bincount(idx, weights=area, minlength=nb)
    out = {}
    for k, v in values.items():
        vs = np.bincount(idx, weights=area * v, minlength=nb)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[k] = np.where(asum > 0, vs / np.where(asum > 0, asum, 1), np.nan)
    centre = (np.arange(nb) + 0.5) * width
    return centre, asum, out


def norms(x, xref, w, scale):
    ok = np.isfinite(x) & np.isfinite(xref)
    if not np.any(ok) or not scale > 0:
        return float("nan"), float("nan")
    d = x[ok] - xref[ok]
    return (float(np.max(np.abs(d)) / scale),
            float(math.sqrt(np.sum(w[ok] * d * d) / np.sum(w[ok])) / scale))


def stagnation_line(run_dir, M):
    path = os.path.join(run_dir, "probes_stagnation_line.csv")
    if not os.path.isfile(path):
        return None
    with open(path) as fh:
        header = fh.readline().strip().split(",")
    a = np.atleast_2d(np.loadtxt(path, delimiter=",", skiprows=1))
    if "rho" not in header or "T" not in header:
        raise BadInput(f"{path}: columns rho and T expected")
    x = a[:, header.index("x")]
    rho = a[:, header.index("rho")]
    T = a[:, header.index("T")]
    o = np.argsort(x)
    x, rho, T = x[o], rho[o], T[o]
    return dict(x=x, rho=rho, T=T)


def standoff(x, v, v_inf, v_post, x_wall):
    """Distance from the wall to where v first (from upstream) reaches v_inf + 0.5 (v_post - v_inf)."""
    target = v_inf + 0.5 * (v_post - v_inf)
    for i in range(1, len(x)):
        if (v[i - 1] - target) * (v[i] - target) <= 0 and v[i] != v[i - 1]:
            xs = x[i - 1] + (target - v[i - 1]) * (x[i] - x[i - 1]) / (v[i] - v[i - 1])
            return x_wall - xs
    return float("nan")


# ---- main ------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("run_dir", nargs="?")
    ap.add_argument("--dsmc", default=DSMC_DEFAULT, help="DSMC folder (surface_profiles.csv); 'none' to skip")
    ap.add_argument("--bin", type=float, default=2.0, help="bin width in degrees (default 2)")
    ap.add_argument("--theta-from", choices=("centroid", "normal"), default="centroid",
                    help="bin faces by the polar angle of their centroid (default, as the DSMC) or by the "
                         "incidence angle of their normal (on a coarse faceted sphere the loads follow the normal)")
    ap.add_argument("--tw-over-tinf", type=float, default=None,
                    help="T_w/T_inf (default: from the run's configuration in surface_final.h5)")
    ap.add_argument("--mach", type=float, default=None,
                    help="free-stream Mach number (default: from the run, U/sqrt(gamma T_inf/2))")
    ap.add_argument("--plots", default="", help="folder for PNG plots")
    ap.add_argument("--label", default="UGKS", help="legend label of the run")
    ap.add_argument("--json", default="", help="write the results as JSON to this file ('-' = stdout; the table then "
                                                "goes to stderr)")
    ap.add_argument("--accommodation", type=float, default=1.0,
                    help="Maxwell's accommodation of the wall for the free-molecular closed forms (default 1)")
    ap.add_argument("--check-fm", nargs=4, type=float, metavar=("CD_TOL", "CP_TOL", "CF_TOL", "CH_TOL"))
    ap.add_argument("--check-fm-continuous", nargs=4, type=float, metavar=("CD_TOL", "CP_TOL", "CF_TOL", "CH_TOL"))
    ap.add_argument("--velocity-grid", default="",
                    help="checkpoint with /velocity/u, /velocity/w (default: newest checkpoint_*.h5 of RUN_DIR)")
    ap.add_argument("--fields", default="",
                    help="a fields_*.h5 of the run: Mach and T/T_inf on the symmetry plane (printed; plotted with --plots)")
    ap.add_argument("--self-check", action="store_true")
    a = ap.parse_args()
    real_stdout = sys.stdout
    if a.json == "-":  # stdout carries the JSON alone; the table goes to stderr
        sys.stdout = sys.stderr

    if a.self_check:
        if not self_check(verbose=True):
            return 1
        if not a.run_dir:
            return 0
    if not a.run_dir:
        raise BadInput("RUN_DIR is required (or --self-check)")
    if not os.path.isdir(a.run_dir):
        raise BadInput(f"run directory '{a.run_dir}' does not exist")
    if not (a.bin > 0 and 180.0 / a.bin == int(round(180.0 / a.bin))):
        raise BadInput(f"--bin must divide 180 degrees, got {a.bin}")

    faces, ref, R, config = read_surface(a.run_dir)
    if not a.self_check and not self_check(verbose=False):  # the closed forms used below
        return 1
    fq = face_quantities(faces, ref, R)
    if a.theta_from == "normal":
        fq["theta"] = fq["theta_normal"]
    tw = a.tw_over_tinf if a.tw_over_tinf is not None else wall_temperature_ratio(config, ref)
    if tw is None:
        raise BadInput("T_w/T_inf unknown: no surface_final.h5 with the configuration; give --tw-over-tinf")
    s = fq["s"]
    M = a.mach if a.mach is not None else s / math.sqrt(GAMMA / 2.0)
    summary = {}
    sj = os.path.join(a.run_dir, "summary.json")
    if os.path.isfile(sj):
        summary = json.load(open(sj))
    res = {"run_dir": os.path.abspath(a.run_dir), "faces": int(len(fq["area"])), "symmetry_factor": fq["factor"],
           "R": R, "s": s, "Mach": M, "Tw_over_Tinf": tw, "CD": fq["CD"], "CD_faceted_frontal_area": fq["CD_faceted"],
           "frontal_area_faceted_over_piR2": fq["frontal_faceted"] / (math.pi * R * R),
           "CQ": fq["Q"] / (fq["q"] * fq["u"] * math.pi * R * R),
           "steps": summary.get("steps"), "residuals": summary.get("residuals", summary.get("final_residuals"))}

    if isinstance(summary.get("walls"), dict) and "force" in summary["walls"]:
        # the solver's own force integration (summary.json walls.force, summed over its faces) against
        # the sum of the written per-face p and tau here
        force = np.array(summary["walls"]["force"]) / ugks_units.run_scales(a.run_dir)["force"]
        cd_tot = float(np.dot(force, np.array(ref["U_inf"]) / fq["u"])) * fq["factor"] / (
            fq["q"] * math.pi * R * R)
        res["CD_solver_totals"] = cd_tot
        res["CD_totals_rel_diff"] = cd_tot / fq["CD"] - 1.0 if fq["CD"] != 0 else float("inf")
    print(f"{a.run_dir}: {res['faces']} wall faces (x{fq['factor']} symmetry), R = {R:.6g}, "
          f"s = {s:.5f}, Ma = {M:.4f}, T_w/T_inf = {tw:.5f}"
          + (f", step {summary.get('steps')}" if summary else ""))
    if "CD_solver_totals" in res:
        print(f"C_D from the solver's totals (summary.json walls.force): {res['CD_solver_totals']:.7f} "
              f"(relative difference to the per-face sum {res['CD_totals_rel_diff']:.1e})")
    print(f"C_D = {fq['CD']:.5f} (pi R^2; with the faceted frontal area {fq['frontal_faceted'] / (math.pi * R * R):.4f} "
          f"pi R^2: {fq['CD_faceted']:.5f}); heat load C_Q = {res['CQ']:.5f}")

    centre, asum, prof = bin_profile(fq["theta"], fq["area"], {"Cp": fq["Cp"], "Cf": fq["Cf"], "Ch": fq["Ch"]},
                                     a.bin)
    res["profile"] = {"theta_deg": centre.tolist(), "area": asum.tolist(),
                      **{k: [None if not np.isfinite(v) else float(v) for v in prof[k]] for k in prof}}

    # (b) free-molecular
    al = a.accommodation
    if not 0.0 <= al <= 1.0:
        raise BadInput(f"--accommodation must be in [0, 1], got {al}")
    cp_f, cf_f, ch_f = fm_element(fq["cos_inc"], s, tw, al)
    fq["fm_faces"] = {"Cp": cp_f, "Cf": cf_f, "Ch": ch_f}
    fx_f = float(np.sum(fq["area"] * fq["q"] * (cp_f * fq["cos_inc"] + cf_f *
                                                 np.sqrt(np.maximum(0, 1 - fq["cos_inc"] ** 2)))))
    # p_inf integrates to zero over the closed faceted surface; Cp includes -p_inf, so add it back per face:
    fx_f += float(np.sum(fq["area"] * (fq["q"] / s ** 2) * fq["cos_inc"]))
    cd_faces = fx_f * fq["factor"] / (fq["q"] * math.pi * R * R)
    cd_sphere = fm_sphere_cd(s, tw, al)
    _, cq_sphere = fm_sphere_integrals(s, tw, alpha=al)
    fm = {"CD_sphere_formula": cd_sphere, "CD_faces_closed_form": cd_faces, "CQ_sphere": cq_sphere,
          "CD_rel_vs_faces": fq["CD"] / cd_faces - 1.0, "CD_rel_vs_sphere": fq["CD"] / cd_sphere - 1.0}
    for k, x, xf in (("Cp", fq["Cp"], cp_f), ("Cf", fq["Cf"], cf_f), ("Ch", fq["Ch"], ch_f)):
        scale = float(np.max(np.abs(xf)))
        e_max, e_l2 = norms(x, xf, fq["area"], scale)
        fm[k] = {"faces_max": e_max, "faces_L2": e_l2, "scale": scale}
    th_fine = np.linspace(0, 180, 721)
    fm_curve = fm_element(np.cos(np.radians(th_fine)), s, tw, al)
    res["free_molecular"] = fm
    print(f"(b) free molecular (flat elements, accommodation {al:g}, s = {s:.4f}, T_w/T_inf = {tw:.4f}): C_D sphere formula "
          f"{cd_sphere:.5f}, closed forms summed over these faces {cd_faces:.5f}; run/faces - 1 = "
          f"{fm['CD_rel_vs_faces']:+.4%}, run/sphere - 1 = {fm['CD_rel_vs_sphere']:+.4%}")
    print("    per face, normalized by max|X_fm|:   " +
          ", ".join(f"{k} max {fm[k]['faces_max']:.4f} L2 {fm[k]['faces_L2']:.4f}" for k in ("Cp", "Cf", "Ch")))

    vg = find_velocity_grid(a.run_dir, a.velocity_grid)
    if vg is not None:
        u, w, vpath = vg
        N = np.stack([faces["nx"], faces["ny"], faces["nz"]], axis=1)
        Uv = np.array(ref["U_inf"])
        cp_d, cf_d, ch_d = fm_element_discrete(N, u, w, Uv, fq["T_inf"], tw, ref["rho_inf"][0], al)
        sinc = np.sqrt(np.maximum(0, 1 - fq["cos_inc"] ** 2))
        fx_d = float(np.sum(fq["area"] * fq["q"] * ((cp_d + 1 / s ** 2) * fq["cos_inc"] + cf_d * sinc)))
        cd_d = fx_d * fq["factor"] / (fq["q"] * math.pi * R * R)
        disc = {"velocity_grid": vpath, "velocities": int(len(w)), "CD_faces_discrete": cd_d,
                "CD_rel_vs_faces_discrete": fq["CD"] / cd_d - 1.0,
                "CD_discrete_vs_continuous": cd_d / cd_faces - 1.0}
        for k, x, xd in (("Cp", fq["Cp"], cp_d), ("Cf", fq["Cf"], cf_d), ("Ch", fq["Ch"], ch_d)):
            scale = float(np.max(np.abs(xd)))
            e_max, e_l2 = norms(x, xd, fq["area"], scale)
            disc[k] = {"faces_max": e_max, "faces_L2": e_l2, "scale": scale}
            cont_scale = fm[k]["scale"]
            disc[k]["discrete_vs_continuous_max"] = float(np.max(np.abs(xd - {"Cp": cp_f, "Cf": cf_f, "Ch": ch_f}[k]))) / cont_scale
        fm["discrete"] = disc
        print(f"    with the run's {len(w)} discrete velocities ({os.path.basename(vpath)}): closed forms on these faces "
              f"C_D {cd_d:.5f} ({disc['CD_discrete_vs_continuous']:+.4%} vs continuous); run/discrete - 1 = "
              f"{disc['CD_rel_vs_faces_discrete']:+.4%}")
        print("    per face vs discrete, normalized by max|X|:  " +
              ", ".join(f"{k} max {disc[k]['faces_max']:.4f} L2 {disc[k]['faces_L2']:.4f}" for k in ("Cp", "Cf", "Ch")))

    # (a) DSMC
    dsmc = None
    if a.dsmc.lower() != "none":
        try:
            dsmc = read_dsmc(a.dsmc)
        except BadInput as err:
            print(f"(a) DSMC skipped: {err}")
    if dsmc is not None:
        lo, hi = dsmc["theta_lo_deg"], dsmc["theta_hi_deg"]
        cd_ref = dsmc["summary"].get("results", {}).get("C_D", float("nan"))
        comp = {"CD_dsmc": cd_ref, "CD_rel": fq["CD"] / cd_ref - 1.0 if cd_ref == cd_ref else None}
        print(f"(a) DSMC (SPARTA, {a.dsmc}): C_D {cd_ref:.4f}; run/DSMC - 1 = {comp['CD_rel']:+.3%}")
        table = []
        for k in ("Cp", "Cf", "Ch"):
            ref_b = np.full(len(centre), np.nan)
            for i in range(len(centre)):
                b0, b1 = i * a.bin, (i + 1) * a.bin
                sel = (lo >= b0 - 1e-9) & (hi <= b1 + 1e-9)
                if np.any(sel):
                    w = (hi[sel] - lo[sel]) * np.sin(np.radians(dsmc["theta_deg"][sel]))
                    ref_b[i] = np.sum(w * dsmc[k][sel]) / np.sum(w)
            scale = float(np.max(np.abs(dsmc[k])))
            e_max, e_l2 = norms(prof[k], ref_b, asum, scale)
            ok = np.isfinite(prof[k]) & np.isfinite(ref_b)
            comp[k] = {"max": e_max, "L2": e_l2, "scale": scale, "bins": int(np.sum(ok))}
            table.append((k, e_max, e_l2, scale, int(np.sum(ok))))
            res.setdefault("profile", {})[k + "_dsmc"] = [None if not np.isfinite(v) else float(v) for v in ref_b]
        print("    coefficient  e_max   e_L2   (normalized by max|X_dsmc|)  bins")
        for k, e_max, e_l2, scale, nb in table:
            print(f"    {k:11s}  {e_max:6.4f} {e_l2:6.4f}  max|{k}_dsmc| = {scale:.4f}         {nb}")
        i0 = 0
        if np.isfinite(prof["Cp"][i0]):
            comp["Cp_stag_bin"] = float(prof["Cp"][i0])
            comp["Cp_stag_dsmc"] = float(dsmc["Cp"][0])
            print(f"    Cp in the first bin (0-{a.bin:g} deg): {prof['Cp'][i0]:.4f} vs DSMC {dsmc['Cp'][0]:.4f}")
        res["dsmc"] = comp

    # (c) continuum
    cp0_pitot, p02 = rayleigh_pitot_cp(M)
    j = int(np.argmin(fq["theta"]))
    cont = {"Cp0_rayleigh_pitot": cp0_pitot, "Cp0_run_face": float(fq["Cp"][j]),
            "theta_of_that_face": float(fq["theta"][j]), "Cp0_rel": float(fq["Cp"][j]) / cp0_pitot - 1.0,
            "standoff_billig_over_R": billig_standoff(M)}
    st = stagnation_line(a.run_dir, M)
    rr, tr = rh_ratios(M)
    if st is not None:
        rho_inf, T_inf = ref["rho_inf"][0], fq["T_inf"]
        x_wall = -R
        d_rho = standoff(st["x"], st["rho"] / rho_inf, 1.0, rr, x_wall) / R
        d_T = standoff(st["x"], st["T"] / T_inf, 1.0, tr, x_wall) / R
        cont.update({"standoff_rho_over_R": d_rho, "standoff_T_over_R": d_T})
    res["continuum"] = cont
    print(f"(c) continuum (meaningful for Kn <= 0.005): stagnation Cp (face at theta {cont['theta_of_that_face']:.1f} deg) "
          f"{cont['Cp0_run_face']:.4f} vs Rayleigh pitot {cp0_pitot:.4f} (p02/p_inf {p02:.3f}); "
          + (f"stand-off Delta/R from rho {cont['standoff_rho_over_R']:.3f}, from T {cont['standoff_T_over_R']:.3f}, "
             if st is not None else "no probes_stagnation_line.csv, ")
          + f"Billig 1967 {cont['standoff_billig_over_R']:.3f}")

    hist = read_history(a.run_dir, fq, R)
    if hist is not None:
        res["history"] = {k: v for k, v in hist.items() if k not in ("t", "cd", "res")}
        print(f"history: step {hist['last_step']}, t = {hist['last_t']:.4g}, residuals (rho, rhoU, rhoE) "
              + ", ".join(f"{r:.2e}" for r in hist["last_residuals"])
              + f"; C_D from wall_Fx {hist['last_CD']:.5f}, change over the last 20 % of the time "
              f"{hist['CD_change_last_20pct']:+.3%}")

    if a.plots:
        plots(a, fq, centre, prof, dsmc, th_fine, fm_curve, st, ref, R, tw, hist)
        res["plots"] = a.plots

    if a.fields:
        sp = symmetry_plane(a.fields, R, fq["T_inf"])
        res["symmetry_plane"] = sp["summary"]
        print_symmetry_plane(sp)
        if a.plots:
            plot_symmetry_plane(a, sp, R)

    status = 0
    checks = []
    if a.check_fm:
        if "discrete" not in fm:
            raise BadInput("--check-fm needs the run's velocity grid: a checkpoint_*.h5 in RUN_DIR or --velocity-grid")
        d = fm["discrete"]
        cd_tol, cp_tol, cf_tol, ch_tol = a.check_fm
        checks += [("C_D vs closed forms with the run's velocities", abs(d["CD_rel_vs_faces_discrete"]), cd_tol),
                   ("Cp per face vs discrete closed form", d["Cp"]["faces_max"], cp_tol),
                   ("Cf per face vs discrete closed form", d["Cf"]["faces_max"], cf_tol),
                   ("Ch per face vs discrete closed form", d["Ch"]["faces_max"], ch_tol)]
    if a.check_fm_continuous:
        cd_tol, cp_tol, cf_tol, ch_tol = a.check_fm_continuous
        checks += [("C_D vs continuous closed forms on these faces", abs(fm["CD_rel_vs_faces"]), cd_tol),
                   ("Cp per face vs continuous closed form", fm["Cp"]["faces_max"], cp_tol),
                   ("Cf per face vs continuous closed form", fm["Cf"]["faces_max"], cf_tol),
                   ("Ch per face vs continuous closed form", fm["Ch"]["faces_max"], ch_tol)]
    if checks and "CD_solver_totals" in res:
        checks.append(("solver totals vs per-face force sum (relative)", abs(res["CD_totals_rel_diff"]), 1e-9))
    if checks:
        for name, v, tol in checks:
            good = v <= tol
            print(f"check-fm: {name}: {v:.5f} {'<=' if good else '>'} {tol:g} {'ok' if good else 'FAILED'}")
            if not good:
                status = 1
        res["checks_passed"] = status == 0

    # the common schema of the validation scripts (scripts/validation_report.py, validation_check.py):
    # errors.<coefficient>.<reference>.{max, rms, points} normalized by the reference's peak, scalars.CD
    common_err, common_scal = {}, {}
    for key in ("Cp", "Cf", "Ch"):
        if "dsmc" in res and key in res["dsmc"]:
            e = res["dsmc"][key]
            common_err.setdefault(key, {})["DSMC"] = {"max": e["max"], "rms": e["L2"], "points": e["bins"]}
        if "free_molecular" in res and key in res["free_molecular"]:
            e = res["free_molecular"][key]
            common_err.setdefault(key, {})["free_molecular_faces"] = {"max": e["faces_max"], "rms": e["faces_L2"],
                                                                      "points": res.get("faces")}
    if "CD" in res:
        if "dsmc" in res:
            common_scal["CD"] = {"value": res["CD"], "reference": res["dsmc"]["CD_dsmc"],
                                 "rel_error": res["dsmc"]["CD_rel"]}
        elif "free_molecular" in res:
            common_scal["CD"] = {"value": res["CD"], "reference": res["free_molecular"]["CD_faces_closed_form"],
                                 "rel_error": res["free_molecular"]["CD_rel_vs_faces"]}
    if "continuum" in res:
        c = res["continuum"]
        common_scal["stagnation_Cp_first_face"] = {"value": c["Cp0_run_face"], "reference": c["Cp0_rayleigh_pitot"],
                                                   "rel_error": c["Cp0_rel"]}
        if "standoff_rho_over_R" in c:  # needs the stagnation-line probe
            common_scal["standoff_over_R"] = {"value": c["standoff_rho_over_R"],
                                              "reference": c["standoff_billig_over_R"],
                                              "rel_error": c["standoff_rho_over_R"] / c["standoff_billig_over_R"] - 1}
    res["errors"], res["scalars"] = common_err, common_scal
    res["normalisation"] = ("Cp, Cf, Ch differences divided by the reference's peak (DSMC: 2-degree bins; "
                            "free molecular: per face); C_D relative")
    if a.json:
        txt = json.dumps(res, indent=1, default=float)
        if a.json == "-":
            real_stdout.write(txt + "\n")
        else:
            with open(a.json, "w") as fh:
                fh.write(txt + "\n")
    return status


# XDMF mixed-topology cell types: number of nodes
XDMF_NODES = {4: 3, 5: 4, 6: 4, 7: 5, 8: 6, 9: 8}


def xdmf_cells(topology, ncells):
    """Node lists of an XDMF mixed topology (type code, nodes...); None if a cell type is not a fixed-size one."""
    cells, i = [], 0
    t = np.asarray(topology)
    while i < len(t) and len(cells) < ncells:
        n = XDMF_NODES.get(int(t[i]))
        if n is None:
            return None
        cells.append(t[i + 1:i + 1 + n])
        i += 1 + n
    if len(cells) != ncells or i != len(t):
        return None
    return cells


def symmetry_plane(path, R, T_inf):
    """Cells of the symmetry planes z = 0 and y = 0 of a fields_*.h5 and their Mach, T/T_inf (see the docstring)."""
    try:
        import h5py
    except ImportError:
        raise BadInput("--fields needs h5py (Debian python3-h5py)")
    if not os.path.isfile(path):
        raise BadInput(f"fields file '{path}' not found")
    with h5py.File(path, "r") as f:
        for k in ("cells/centroid", "fields/Mach", "fields/T"):
            if k not in f:
                raise BadInput(f"{path}: no dataset '{k}'")
        sc = ugks_units.scales(f.attrs)  # back to the solver's units (output.units: si)
        c = f["cells/centroid"][:] / sc["length"]
        mach = f["fields/Mach"][:]
        T = f["fields/T"][:] / sc["temperature"] / T_inf
        vol = f["cells/volume"][:] / sc["volume"] if "cells/volume" in f else None
        nodes = f["mesh/nodes"][:] / sc["length"] if "mesh/nodes" in f else None
        topo = f["mesh/topology"][:] if "mesh/topology" in f else None
        step = int(f.attrs["step"]) if "step" in f.attrs else None
    n = len(c)
    h = np.cbrt(vol) if vol is not None else None
    cells = xdmf_cells(topo, n) if (nodes is not None and topo is not None) else None
    sel, method = {}, None
    if cells is not None:
        tol = 1e-9 * float(np.max(np.abs(nodes)))
        method = "cells with a face on the plane (>= 3 nodes on it)"
        for ax in (1, 2):
            on = np.abs(nodes[:, ax]) <= tol
            sel[ax] = np.array([int(np.count_nonzero(on[cl])) >= 3 for cl in cells])
        # cell size for the long-triangle mask: the largest extent of its nodes (the prism layers are thin)
        h = np.array([float(np.max(np.ptp(nodes[cl], axis=0))) for cl in cells])
    elif h is not None:
        method = "|centroid offset| < 0.5 volume^(1/3) (no usable mesh topology)"
        for ax in (1, 2):
            sel[ax] = np.abs(c[:, ax]) < 0.5 * h
    else:
        raise BadInput(f"{path}: neither mesh/nodes + mesh/topology nor cells/volume: cannot find the symmetry plane")
    iz = np.flatnonzero(sel[2])
    iy = np.flatnonzero(sel[1])
    if len(iz) < 3:
        raise BadInput(f"{path}: fewer than 3 cells on the symmetry plane z = 0 (is this a half or quarter domain?)")
    jm = iz[int(np.argmax(mach[iz]))]
    jt = iz[int(np.argmax(T[iz]))]
    js = int(np.argmin(np.linalg.norm(c - np.array([-R, 0.0, 0.0]), axis=1)))
    summ = {"file": os.path.abspath(path), "step": step, "method": method, "cells_z0": int(len(iz)),
            "cells_y0": int(len(iy)),
            "max_Mach": float(mach[jm]), "max_Mach_at_xy_over_R": [float(c[jm, 0] / R), float(c[jm, 1] / R)],
            "max_T_over_Tinf": float(T[jt]), "max_T_at_xy_over_R": [float(c[jt, 0] / R), float(c[jt, 1] / R)],
            "stagnation_cell_centroid_over_R": [float(v / R) for v in c[js]],
            "stagnation_cell_T_over_Tinf": float(T[js]), "stagnation_cell_Mach": float(mach[js])}
    if len(iy):
        summ["y0_max_Mach"] = float(np.max(mach[iy]))
        summ["y0_max_T_over_Tinf"] = float(np.max(T[iy]))
    return {"summary": summ, "c": c, "Mach": mach, "T": T, "h": h, "iz": iz, "iy": iy}


def print_symmetry_plane(sp):
    s = sp["summary"]
    print(f"symmetry plane z = 0 ({os.path.basename(s['file'])}" + (f", step {s['step']}" if s["step"] is not None else "")
          + f"; {s['cells_z0']} cells: {s['method']}): max Mach {s['max_Mach']:.3f} at (x/R, y/R) = "
          f"({s['max_Mach_at_xy_over_R'][0]:.2f}, {s['max_Mach_at_xy_over_R'][1]:.2f}); max T/T_inf "
          f"{s['max_T_over_Tinf']:.3f} at ({s['max_T_at_xy_over_R'][0]:.2f}, {s['max_T_at_xy_over_R'][1]:.2f})")
    sc = s["stagnation_cell_centroid_over_R"]
    print(f"    stagnation cell (centroid nearest to (-R, 0, 0), at ({sc[0]:.3f}, {sc[1]:.3f}, {sc[2]:.3f}) R): "
          f"T/T_inf {s['stagnation_cell_T_over_Tinf']:.3f}, Mach {s['stagnation_cell_Mach']:.3f}"
          + (f"; plane y = 0 ({s['cells_y0']} cells): max Mach {s['y0_max_Mach']:.3f}, max T/T_inf "
             f"{s['y0_max_T_over_Tinf']:.3f}" if "y0_max_Mach" in s else ""))


def plot_symmetry_plane(a, sp, R):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 (matplotlib.ticker.MaxNLocator)
    import matplotlib.tri as mtri
    os.makedirs(a.plots, exist_ok=True)
    c, h, iz, iy = sp["c"], sp["h"], sp["iz"], sp["iy"]
    # upper half: plane z = 0 at (x, y); lower half: plane y = 0 at (x, -z) (the same meridian by axisymmetry)
    idx = np.concatenate([iz, iy])
    px = c[idx, 0] / R
    py = np.concatenate([c[iz, 1], -c[iy, 2]]) / R
    hh = h[idx] / R
    tri = mtri.Triangulation(px, py)
    t = tri.triangles
    mask = np.zeros(len(t), dtype=bool)
    for i in range(3):  # a triangle across the body: an edge midpoint well inside (r < 0.9 R); the rest the disc hides
        j = (i + 1) % 3
        mx, my = 0.5 * (px[t[:, i]] + px[t[:, j]]), 0.5 * (py[t[:, i]] + py[t[:, j]])
        mask |= mx * mx + my * my < 0.81
        edge = np.hypot(px[t[:, i]] - px[t[:, j]], py[t[:, i]] - py[t[:, j]])
        mask |= edge > 3.0 * np.maximum(hh[t[:, i]], hh[t[:, j]])
    gx, gy = px[t].mean(axis=1), py[t].mean(axis=1)
    mask |= gx * gx + gy * gy < 1.0
    tri.set_mask(mask)
    s = sp["summary"]
    fig, axs = plt.subplots(1, 2, figsize=(10.5, 4.2))
    phi = np.linspace(0, 2 * math.pi, 361)
    ext = float(np.max(np.abs(np.concatenate([px, py])))) if len(px) else 8.0
    for ax, key, title, cmap in ((axs[0], "Mach", "Mach", "viridis"), (axs[1], "T", "T / T_inf", "inferno")):
        v = sp[key][idx]
        lev = matplotlib.ticker.MaxNLocator(24).tick_values(float(np.min(v)), float(np.max(v)))
        cs = ax.tricontourf(tri, v, levels=lev, cmap=cmap)
        fig.colorbar(cs, ax=ax, shrink=0.85, label=title)
        ax.fill(np.cos(phi), np.sin(phi), color="0.85", zorder=3)
        ax.plot(np.cos(phi), np.sin(phi), "k-", lw=0.8, zorder=4)
        ax.axhline(0.0, color="w", lw=0.5, ls=":", zorder=4)
        ax.set_aspect("equal")
        ax.set_xlim(-ext, ext)
        ax.set_ylim(-ext, ext)
        ax.set_xlabel("x / R")
        ax.set_ylabel("y / R (above), -z / R (below)")
        ax.set_title(f"{a.label}: {title}, symmetry planes z = 0 (top), y = 0 (bottom)", fontsize=8)
    jm, jt = s["max_Mach_at_xy_over_R"], s["max_T_at_xy_over_R"]
    axs[0].plot(*jm, "w+", ms=8, zorder=5)
    axs[1].plot(*jt, "c+", ms=8, zorder=5)
    fig.tight_layout()
    fig.savefig(os.path.join(a.plots, "sphere_symmetry_plane.png"), dpi=100)
    plt.close(fig)


def read_history(run_dir, fq, R):
    """history.csv: C_D(t) from the per-step wall force (wall_Fx) and the residuals; None without it."""
    path = os.path.join(run_dir, "history.csv")
    if not os.path.isfile(path):
        return None
    with open(path) as fh:
        header = fh.readline().strip().split(",")
    if "wall_Fx" not in header or "time" not in header:
        return None
    h = np.atleast_2d(np.loadtxt(path, delimiter=",", skiprows=1))
    if h.shape[0] == 0 or h.shape[1] != len(header):
        return None
    col = {k: h[:, i] for i, k in enumerate(header)}
    Uv = np.array([col["wall_Fx"], col["wall_Fy"], col["wall_Fz"]]).T if "wall_Fy" in col else None
    fx = col["wall_Fx"] if Uv is None else Uv @ (np.array(fq["U_dir"]))
    cd = fx * fq["factor"] / (fq["q"] * math.pi * R * R)
    t = col["time"]
    res = np.array([col["res_rho"], col["res_rhoU"], col["res_rhoE"]]).T
    i80 = int(np.searchsorted(t, t[-1] - 0.2 * (t[-1] - t[0])))
    return {"t": t, "cd": cd, "res": res, "last_step": int(col["step"][-1]), "last_t": float(t[-1]),
            "last_residuals": [float(v) for v in res[-1]], "last_CD": float(cd[-1]),
            "CD_change_last_20pct": float(cd[-1] / cd[min(i80, len(cd) - 1)] - 1.0)}


def plots(a, fq, centre, prof, dsmc, th_fine, fm_curve, st, ref, R, tw, hist=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(a.plots, exist_ok=True)
    fig, ax = plt.subplots(1, 3, figsize=(10.5, 3.2))
    for i, k in enumerate(("Cp", "Cf", "Ch")):
        ok = np.isfinite(prof[k])
        ax[i].plot(fq["theta"], fq[k], ".", ms=3, color="0.6", label=f"{a.label} faces")
        ax[i].plot(centre[ok], prof[k][ok], "o-", ms=3, lw=1, color="C0", label=f"{a.label} {a.bin:g} deg bins")
        if dsmc is not None:
            ax[i].errorbar(dsmc["theta_deg"], dsmc[k], yerr=dsmc["se_" + k], fmt="-", lw=1, color="k",
                           label="DSMC (SPARTA)")
        ax[i].plot(th_fine, fm_curve[i], "--", lw=1, color="C3", label="free molecular (sphere)")
        if dsmc is None:
            ax[i].plot(fq["theta"], fq["fm_faces"][k], "x", ms=4, color="C3", label="free molecular (faces)")
        ax[i].set_xlabel("theta [deg]")
        ax[i].set_ylabel(k)
        ax[i].set_xlim(0, 180)
        ax[i].grid(alpha=0.3)
    ax[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(a.plots, "sphere_surface.png"), dpi=80)
    plt.close(fig)
    if st is not None:
        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.plot(st["x"] / R, st["rho"] / ref["rho_inf"][0], "o-", ms=3, label=f"n/n_inf {a.label}")
        ax.plot(st["x"] / R, st["T"] / fq["T_inf"], "s-", ms=3, label=f"T/T_inf {a.label}")
        if dsmc is not None and "stag" in dsmc:
            ax.plot(dsmc["stag"][:, 0], dsmc["stag"][:, 1], "k-", lw=1, label="n/n_inf DSMC")
            ax.plot(dsmc["stag"][:, 0], dsmc["stag"][:, 3], "k--", lw=1, label="T/T_inf DSMC")
        ax.set_xlabel("x/R")
        ax.set_xlim(-4, -1)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(a.plots, "sphere_stagnation_line.png"), dpi=80)
        plt.close(fig)
    if hist is not None:
        fig, ax = plt.subplots(1, 2, figsize=(8, 2.8))
        ax[0].plot(hist["t"], hist["cd"], lw=1)
        if dsmc is not None and dsmc["summary"].get("results", {}).get("C_D"):
            ax[0].axhline(dsmc["summary"]["results"]["C_D"], color="k", lw=0.8, ls="--", label="DSMC")
            ax[0].legend(fontsize=7)
        ax[0].set_xlabel("t [D / sqrt(2 R T_inf)]")
        ax[0].set_ylabel("C_D")
        ax[0].grid(alpha=0.3)
        for j, name in enumerate(("rho", "rho U", "rho E")):
            ax[1].semilogy(hist["t"], hist["res"][:, j], lw=1, label=name)
        ax[1].set_xlabel("t")
        ax[1].set_ylabel("residual")
        ax[1].legend(fontsize=7)
        ax[1].grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(a.plots, "sphere_history.png"), dpi=80)
        plt.close(fig)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BadInput as err:
        print(f"compare_sphere.py: {err}", file=sys.stderr)
        sys.exit(2)
