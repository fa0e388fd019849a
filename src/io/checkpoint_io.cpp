// Checkpoints: the full phase-space state in global cell and velocity order (parallel HDF5), and
// its validated read-back for any other decomposition.
#include "ugks/io/checkpoint_io.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hdf5_common.hpp"
#include "row_route.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/version.hpp"

namespace ugks {
namespace {

using namespace io_detail;

inline std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/// This rank's velocity columns: global (VelocityGrid) index and local slot, ascending global
/// index; padded slots are left out.
struct Columns {
    std::vector<index_t> global, slot;
    /// Maximal runs of consecutive global indices: (first, length).
    ColumnRuns runs() const {
        ColumnRuns r;
        for (index_t g : global) {
            if (!r.empty() && r.back().first + r.back().second == g)
                ++r.back().second;
            else
                r.push_back({g, 1});
        }
        return r;
    }
};

Columns rank_columns(const VelocityBlocks& blocks, int q) {
    int first = 0, count = 0;
    blocks.range(q, first, count);
    const index_t B = blocks.block_size;
    std::vector<std::pair<index_t, index_t>> pairs;
    for (index_t s = 0; s < count * B; ++s) {
        const index_t o = blocks.order[first * B + s];
        if (o >= 0) pairs.push_back({o, s});
    }
    std::sort(pairs.begin(), pairs.end());
    Columns c;
    for (const auto& p : pairs) {
        c.global.push_back(p.first);
        c.slot.push_back(p.second);
    }
    return c;
}

/// Partial checksum of rows [r0, r0 + nr) x columns `cols` of a dataset with `ncols` columns.
std::uint64_t partial_checksum(const double* buf, index_t r0, index_t nr,
                               const std::vector<index_t>& cols, index_t ncols) {
    std::uint64_t s = 0;
    const index_t w = static_cast<index_t>(cols.size());
    for (index_t r = 0; r < nr; ++r)
        for (index_t k = 0; k < w; ++k)
            s += checkpoint_element_hash(static_cast<std::uint64_t>((r0 + r) * ncols + cols[k]),
                                         buf[r * w + k]);
    return s;
}

std::vector<index_t> iota_cols(index_t w) {
    std::vector<index_t> c(static_cast<std::size_t>(w));
    for (index_t k = 0; k < w; ++k) c[k] = k;
    return c;
}

/// Chunks of this rank's velocity columns that one checkpoint transfer step moves: `width`
/// columns each (the last one fewer), `count` of them on this rank, `count_all` the most of any
/// rank of the world (the number of collective dataset writes or reads per distribution).
struct ColumnChunks {
    index_t n_cols = 0, width = 0;
    long count = 0, count_all = 0;
    /// Columns [begin(c), end(c)) of this rank's; empty for c >= count.
    index_t begin(long c) const { return std::min<index_t>(c * width, n_cols); }
    index_t end(long c) const { return std::min<index_t>((c + 1) * width, n_cols); }
};

/// Bytes of one transfer buffer of a chunk: kCheckpointChunkBytes or the test override
/// UGKS_TEST_CHECKPOINT_CHUNK_BYTES (a positive integer; docs/usage.md). The smallest over the
/// world, so that the ranks of a comm_x agree on the chunk width.
std::size_t chunk_bytes(MPI_Comm world, const std::string& path) {
    unsigned long long bytes = kCheckpointChunkBytes;
    bool ok = true;
    std::string bad_value;
    if (const char* v = std::getenv("UGKS_TEST_CHECKPOINT_CHUNK_BYTES"); v && *v) {
        char* end = nullptr;
        errno = 0;
        const unsigned long long x = std::strtoull(v, &end, 10);
        ok = *v >= '0' && *v <= '9' && end != v && *end == '\0' && errno == 0 && x > 0;
        if (ok)
            bytes = x;
        else
            bad_value = v;
    }
    if (!all_ok(world, ok)) {
        if (bad_value.empty()) bad_value = "(on another rank)";
        UGKS_INPUT_ERROR("checkpoint '"
                         << path << "': environment variable UGKS_TEST_CHECKPOINT_CHUNK_BYTES='"
                         << bad_value << "': expected a positive number of bytes");
    }
    MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, world);
    return static_cast<std::size_t>(bytes);
}

/// Split `n_cols` columns (the same on every rank of L.comm_x) so that a buffer of `rows` x width
/// doubles stays within `bytes` (at least one column per chunk); `rows`: the largest transfer
/// buffer of this rank in rows (maximised over comm_x, so its ranks agree on the width).
ColumnChunks column_chunks(const PhaseSpaceLayout& L, index_t n_cols, index_t rows,
                           std::size_t bytes) {
    long long r = std::max<index_t>(rows, 1);
    MPI_Allreduce(MPI_IN_PLACE, &r, 1, MPI_LONG_LONG, MPI_MAX, L.comm_x);
    ColumnChunks c;
    c.n_cols = n_cols;
    c.width = std::max<index_t>(1, static_cast<index_t>(bytes / (sizeof(double) * r)));
    c.width = std::min<index_t>(c.width, std::max<index_t>(n_cols, 1));
    c.count = n_cols > 0 ? static_cast<long>((n_cols + c.width - 1) / c.width) : 0;
    c.count_all = c.count;
    MPI_Allreduce(MPI_IN_PLACE, &c.count_all, 1, MPI_LONG, MPI_MAX, L.world);
    return c;
}

/// Where the columns of `cols` lie in a distribution stored [block][cell][B] for `ncl` cells:
/// column k of local cell i is element at[k] + i * B.
std::vector<index_t> slot_offsets(const Columns& cols, index_t B, index_t ncl) {
    std::vector<index_t> at(cols.slot.size());
    for (std::size_t k = 0; k < at.size(); ++k)
        at[k] = (cols.slot[k] / B) * ncl * B + cols.slot[k] % B;
    return at;
}

/// Columns [k0, k1) of `cols`.
Columns sub_columns(const Columns& cols, index_t k0, index_t k1) {
    Columns c;
    c.global.assign(cols.global.begin() + k0, cols.global.begin() + k1);
    c.slot.assign(cols.slot.begin() + k0, cols.slot.begin() + k1);
    return c;
}

// ---- serial validation (rank 0) --------------------------------------------------------------

const char* const kStateNames[5] = {"/state/W", "/state/q", "/state/stress", "/state/h",
                                    "/state/b"};

struct Stored {
    CheckpointInfo info;
    std::int64_t velocity_dim = 0, K_int = 0, store_b = 0;
    std::uint64_t checksum[5] = {0, 0, 0, 0, 0};
    /// version 3: limiter_frozen_step (as uint64; -1 when none), checksums of limiter_W, _h, _b
    std::uint64_t limiter[4] = {static_cast<std::uint64_t>(-1), 0, 0, 0};
    long limiter_step() const { return static_cast<long>(static_cast<std::int64_t>(limiter[0])); }
};

const char* const kLimiterNames[3] = {"/state/limiter_W", "/state/limiter_h", "/state/limiter_b"};

[[noreturn]] void bad(const std::string& path, const std::string& what) {
    UGKS_INPUT_ERROR("checkpoint '" << path << "': " << what);
}

void expect_dims(const std::string& path, const H5Reader& r, const std::string& name, index_t rows,
                 index_t cols) {
    const std::vector<index_t> d = r.dims(name);
    const bool ok =
        cols == 0 ? d.size() == 1 && d[0] == rows : d.size() == 2 && d[0] == rows && d[1] == cols;
    if (!ok) {
        std::ostringstream os;
        os << "dataset '" << name << "' has shape (";
        for (std::size_t k = 0; k < d.size(); ++k) os << (k ? ", " : "") << d[k];
        os << "), expected (" << rows;
        if (cols > 0) os << ", " << cols;
        os << ")";
        bad(path, os.str());
    }
}

/// The stored points (`points`, rows x 3) and weights (`weights`, rows) of the case's `n` rows of
/// `what` ("mesh", "velocity grid"), after checking their shapes (`rows`: the name of n in
/// messages, `items`: what a row is).
std::pair<std::vector<double>, std::vector<double>> read_points(
    const std::string& path, const H5Reader& r, const std::string& points,
    const std::string& weights, index_t n, const std::string& rows, const std::string& what,
    const std::string& items) {
    const std::vector<index_t> d = r.dims(points);
    if (d.size() != 2 || d[1] != 3) bad(path, "dataset '" + points + "' is not " + rows + " x 3");
    if (d[0] != n)
        bad(path, "written for a " + what + " of " + std::to_string(d[0]) + " " + items +
                      "; the case's " + what + " has " + std::to_string(n) + " " + items);
    expect_dims(path, r, weights, n, 0);
    return {r.read<double>(points), r.read<double>(weights)};
}

std::string vec_text(const double* v, int n) {
    std::ostringstream os;
    os.precision(10);
    os << "(";
    for (int k = 0; k < n; ++k) os << (k ? ", " : "") << v[k];
    os << ")";
    return os.str();
}

/// The largest step count a checkpoint may hold (a bound far above any run's).
constexpr std::int64_t kMaxCheckpointStep = 1000000000000;  // 1e12

/// The root attributes and the datasets' checksums of an open checkpoint: format and version,
/// the ranges of step and time, then (version 2) the checksum over them.
Stored read_root(const std::string& path, const H5Reader& r) {
    Stored s;
    if (!r.has_attribute("/", "format") || r.string_attribute("/", "format") != "ugks_checkpoint")
        bad(path, "not a ugks_solver checkpoint (root attribute format != 'ugks_checkpoint')");
    const auto version = r.scalar_attribute<std::int64_t>("/", "format_version");
    if (version < kCheckpointOldestFormatVersion || version > kCheckpointFormatVersion)
        bad(path, "checkpoint format version " + std::to_string(version) +
                      ", but this ugks_solver reads versions " +
                      std::to_string(kCheckpointOldestFormatVersion) + " to " +
                      std::to_string(kCheckpointFormatVersion));
    s.info.format_version = static_cast<int>(version);
    // Ranges first (a clear message for an absurd value), then the checksum over the attributes.
    const std::int64_t step = r.scalar_attribute<std::int64_t>("/", "step");
    if (step < 0 || step > kMaxCheckpointStep)
        bad(path, "root attribute 'step' = " + std::to_string(step) +
                      " is not a step count (0 .. " + std::to_string(kMaxCheckpointStep) + ")");
    s.info.step = static_cast<long>(step);
    s.info.time = r.scalar_attribute<double>("/", "time");
    if (!std::isfinite(s.info.time) || s.info.time < 0) {
        std::ostringstream t;
        t.precision(10);
        t << s.info.time;
        bad(path, "root attribute 'time' = " + t.str() + " is not a time (finite, >= 0)");
    }
    s.info.config = r.string_attribute("/", "config");
    s.info.version = r.string_attribute("/", "ugks_version");
    s.velocity_dim = r.scalar_attribute<std::int64_t>("/", "velocity_dim");
    s.K_int = r.scalar_attribute<std::int64_t>("/", "K_int");
    s.store_b = r.scalar_attribute<std::int64_t>("/", "store_b");
    for (int k = 0; k < 5; ++k)
        if (k < 4 || s.store_b != 0)
            s.checksum[k] = r.scalar_attribute<std::uint64_t>(kStateNames[k], "checksum");
    if (version == 1) {
        // Before run ids: the file belongs to no run; its age is the file's.
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0)
            s.info.written_at = static_cast<double>(st.st_mtim.tv_sec) + 1e-9 * st.st_mtim.tv_nsec;
        return s;
    }
    s.info.run_id = r.string_attribute("/", "run_id");
    s.info.written_at = r.scalar_attribute<double>("/", "written_at");
    if (version >= 3) {
        const std::int64_t ls = r.scalar_attribute<std::int64_t>("/", "limiter_frozen_step");
        if (ls < -1 || ls > step)
            bad(path, "root attribute 'limiter_frozen_step' = " + std::to_string(ls) +
                          " is neither -1 nor a step up to the checkpoint's step " +
                          std::to_string(step));
        s.limiter[0] = static_cast<std::uint64_t>(ls);
        if (ls >= 0)
            for (int k = 0; k < 3; ++k)
                if (k < 2 || s.store_b != 0)
                    s.limiter[1 + k] =
                        r.scalar_attribute<std::uint64_t>(kLimiterNames[k], "checksum");
    }
    const auto stored = r.scalar_attribute<std::uint64_t>("/", "attribute_checksum");
    const std::uint64_t computed = checkpoint_attribute_checksum(s.info, s.velocity_dim, s.K_int,
                                                                 s.store_b, s.checksum, s.limiter);
    if (stored != computed)
        bad(path,
            "checksum mismatch over the root attributes (step, time, run_id, written_at, config, "
            "...): they were changed after the file was written (stored " +
                std::to_string(stored) + ", computed " + std::to_string(computed) + ")");
    return s;
}

/// Open checkpoint `path` for reading by one rank (the caller keeps a QuietHdf5).
H5Reader open_serial(const std::string& path) {
    if (const std::string why = input_file_problem(path); !why.empty())
        bad(path, why == "does not exist" ? std::string("no such file") : why);
    Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) bad(path, "cannot open: not an HDF5 file, or truncated or damaged");
    return H5Reader(std::move(file), "checkpoint '" + path + "'");
}

Stored validate_serial(const std::string& path, const CheckpointLayout& where) {
    const QuietHdf5 quiet;
    const H5Reader r = open_serial(path);
    Stored s = read_root(path, r);

    // Mesh: cell count, centroids and volumes in global order.
    const Mesh& m = *where.global_mesh;
    const index_t n = m.n_cells();
    {
        const auto [c, vol] =
            read_points(path, r, "/mesh/centroid", "/mesh/volume", n, "n", "mesh", "cells");
        double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
        for (index_t i = 0; i < n; ++i)
            for (int d = 0; d < 3; ++d) {
                lo[d] = std::min(lo[d], m.cell_centroid[i][d]);
                hi[d] = std::max(hi[d], m.cell_centroid[i][d]);
            }
        double L = 0.0;
        for (int d = 0; d < 3; ++d) L = std::max(L, hi[d] - lo[d]);
        const double tol = 1e-9 * (L > 0 ? L : 1.0);
        for (index_t i = 0; i < n; ++i) {
            bool same = std::abs(vol[i] - m.cell_volume[i]) <= 1e-9 * std::abs(m.cell_volume[i]);
            for (int d = 0; d < 3; ++d)
                same = same && std::abs(c[3 * i + d] - m.cell_centroid[i][d]) <= tol;
            if (!same)
                bad(path, "written for another mesh: cell " + std::to_string(i) + " has centroid " +
                              vec_text(&c[3 * i], 3) + " and volume " + vec_text(&vol[i], 1) +
                              " in the checkpoint, centroid " +
                              vec_text(m.cell_centroid[i].data(), 3) + " and volume " +
                              vec_text(&m.cell_volume[i], 1) + " in the case's mesh");
        }
    }

    // Velocity grid: points and weights in VelocityGrid order; D, K_int, b.
    const VelocityGrid& g = *where.grid;
    const index_t nv = g.size();
    {
        const auto [u, w] = read_points(path, r, "/velocity/u", "/velocity/w", nv, "n_v",
                                        "velocity grid", "points");
        double umax = 1.0;
        for (const Vec3& x : g.u)
            for (int d = 0; d < 3; ++d) umax = std::max(umax, std::abs(x[d]));
        for (index_t k = 0; k < nv; ++k) {
            bool same = std::abs(w[k] - g.w[k]) <= 1e-12 * std::max(1.0, std::abs(g.w[k]));
            for (int d = 0; d < 3; ++d)
                same = same && std::abs(u[3 * k + d] - g.u[k][d]) <= 1e-12 * umax;
            if (!same)
                bad(path, "written for another velocity grid: point " + std::to_string(k) + " is " +
                              vec_text(&u[3 * k], 3) + " with weight " + vec_text(&w[k], 1) +
                              " in the checkpoint, " + vec_text(g.u[k].data(), 3) +
                              " with weight " + vec_text(&g.w[k], 1) + " in the case");
        }
    }
    const std::int64_t D = s.velocity_dim, K = s.K_int, sb = s.store_b;
    if (D != g.dim)
        bad(path, "written with velocity dimension " + std::to_string(D) + "; the case has " +
                      std::to_string(g.dim));
    if (K != where.K_int)
        bad(path, "written with gas.K_int = " + std::to_string(K) + "; the case has " +
                      std::to_string(where.K_int));
    if ((sb != 0) != where.store_b)
        bad(path, std::string("written ") + (sb ? "with" : "without") +
                      " the b distribution; the case needs it " +
                      (where.store_b ? "stored" : "absent"));

    const index_t widths[5] = {5, 3, 6, nv, nv};
    for (int k = 0; k < 5; ++k) {
        if (k == 4 && !where.store_b) continue;
        expect_dims(path, r, kStateNames[k], n, widths[k]);
    }
    if (s.limiter_step() >= 0)
        for (int k = 0; k < 3; ++k) {
            if (k == 2 && !where.store_b) continue;
            expect_dims(path, r, kLimiterNames[k], n, k == 0 ? 5 : nv);
        }
    return s;
}

}  // namespace

std::uint64_t checkpoint_element_hash(std::uint64_t linear_index, double value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return splitmix(bits ^ splitmix(linear_index));
}

std::uint64_t checkpoint_attribute_checksum(const CheckpointInfo& info, std::int64_t velocity_dim,
                                            std::int64_t K_int, std::int64_t store_b,
                                            const std::uint64_t dataset_checksums[5],
                                            const std::uint64_t limiter[4]) {
    std::uint64_t h = splitmix(0x75676b735f636b70ull);
    auto mix = [&](std::uint64_t x) { h = splitmix(h ^ x); };
    auto mix_double = [&](double v) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        mix(bits);
    };
    // Text: its length, then its bytes eight at a time (the last word zero-padded).
    auto mix_text = [&](const std::string& t) {
        mix(t.size());
        for (std::size_t i = 0; i < t.size(); i += 8) {
            std::uint64_t w = 0;
            std::memcpy(&w, t.data() + i, std::min<std::size_t>(8, t.size() - i));
            mix(w);
        }
    };
    mix(static_cast<std::uint64_t>(info.format_version));
    mix(static_cast<std::uint64_t>(info.step));
    mix_double(info.time);
    mix_text(info.run_id);
    mix_double(info.written_at);
    mix_text(info.config);
    mix_text(info.version);
    mix(static_cast<std::uint64_t>(velocity_dim));
    mix(static_cast<std::uint64_t>(K_int));
    mix(static_cast<std::uint64_t>(store_b));
    for (int k = 0; k < 5; ++k) mix(dataset_checksums[k]);
    if (info.format_version >= 3)
        for (int k = 0; k < 4; ++k) mix(limiter[k]);
    return h;
}

CheckpointInfo read_checkpoint_header(const std::string& path) {
    const QuietHdf5 quiet;
    const H5Reader r = open_serial(path);
    return read_root(path, r).info;
}

std::string make_run_id() {
    std::random_device rd;
    std::uint64_t x = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    x ^= splitmix(
        static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()));
    x = splitmix(x ^ static_cast<std::uint64_t>(::getpid()));
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
    return buf;
}

std::string checkpoint_file_name(long step) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "checkpoint_%06ld.h5", step);
    return buf;
}

std::vector<std::string> list_checkpoints(const std::string& dir) {
    std::vector<std::pair<long, std::string>> found;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        const std::string pre = "checkpoint_", post = ".h5";
        if (name.size() <= pre.size() + post.size() || name.compare(0, pre.size(), pre) != 0 ||
            name.compare(name.size() - post.size(), post.size(), post) != 0)
            continue;
        const std::string digits = name.substr(pre.size(), name.size() - pre.size() - post.size());
        if (digits.empty() || digits.size() > 15 ||
            !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        found.push_back({std::stol(digits), e.path().string()});
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second > b.second;
    });
    std::vector<std::string> out;
    for (const auto& f : found) out.push_back(f.second);
    return out;
}

void prune_checkpoints(const std::string& dir, int keep, const std::string& run_id) {
    if (keep <= 0 || run_id.empty()) return;
    int kept = 0;
    std::error_code ec;
    for (const std::string& f : list_checkpoints(dir)) {  // newest first
        try {
            if (read_checkpoint_header(f).run_id != run_id) continue;
        } catch (const InputError&) {
            continue;  // not examinable: not this run's to remove
        }
        if (++kept > keep) std::filesystem::remove(f, ec);
    }
}

void write_checkpoint(const std::string& path, const CheckpointLayout& where,
                      const std::string& config_yaml, const std::string& run_id,
                      const CheckpointState& st) {
    const PhaseSpaceLayout& L = *where.layout;
    const Mesh& M = *where.global_mesh;
    const LocalMesh& loc = *where.local;
    const VelocityGrid& grid = *where.grid;
    const VelocityBlocks& blocks = *where.blocks;
    const index_t n = M.n_cells(), nv = grid.size();
    const index_t ncl = loc.n_owned + loc.n_ghost, no = loc.n_owned;
    int first = 0, count = 0;
    blocks.range(L.q, first, count);
    const index_t B = blocks.block_size;
    UGKS_REQUIRE(static_cast<index_t>(st.W.size()) == 5 * ncl &&
                     static_cast<index_t>(st.q.size()) == 3 * ncl &&
                     static_cast<index_t>(st.stress.size()) == 6 * no &&
                     static_cast<index_t>(st.h.size()) == count * B * ncl &&
                     st.b.size() == (where.store_b ? st.h.size() : 0),
                 "solver state sizes do not match the decomposition");

    const Columns cols = rank_columns(blocks, L.q);
    const index_t nw = static_cast<index_t>(cols.global.size());
    const BlockLayout cb{n, L.P_x};
    const index_t r0 = cb.begin(L.p), nr = cb.end(L.p) - r0;
    const std::vector<index_t> owned(loc.global_cell.begin(), loc.global_cell.begin() + no);
    // Owned rows travel to contiguous blocks of global cells within comm_x (every velocity group
    // holds the same W; group 0 writes it): the macroscopic rows W | q | stress (14 doubles) at
    // once, the distributions chunk by chunk of this rank's velocity columns, so that the transfer
    // buffers (send: no rows, receive and block: nr rows) stay within chunk_bytes each.
    const Route to_blocks = push_route(L.comm_x, cb, owned);
    const ColumnChunks chunks = column_chunks(L, nw, std::max(no, nr), chunk_bytes(L.world, path));
    std::vector<double> send, recv, block;  // transfer buffers, reused for every chunk

    const bool frozen = st.limiter.step >= 0;
    UGKS_REQUIRE(
        !frozen || (static_cast<index_t>(st.limiter.W.size()) == 5 * ncl &&
                    st.limiter.h.size() == st.h.size() && st.limiter.b.size() == st.b.size()),
        "frozen limiter sizes do not match the decomposition");
    std::vector<double> Wb(5 * nr), qb(3 * nr), sb(6 * nr), lb(frozen ? 5 * nr : 0);
    std::uint64_t lim[4] = {static_cast<std::uint64_t>(frozen ? st.limiter.step : -1), 0, 0, 0};
    if (frozen) {
        to_blocks.move(
            5, send, recv,
            [&](index_t i, double* out) { std::copy_n(&st.limiter.W[5 * i], 5, out); },
            [&](index_t r, const double* in) { std::copy_n(in, 5, &lb[5 * r]); });
        if (L.q == 0) lim[1] = partial_checksum(lb.data(), r0, nr, iota_cols(5), 5);
        MPI_Allreduce(MPI_IN_PLACE, &lim[1], 1, MPI_UINT64_T, MPI_SUM, L.world);
    }
    to_blocks.move(
        14, send, recv,
        [&](index_t i, double* out) {
            std::copy_n(&st.W[5 * i], 5, out);
            std::copy_n(&st.q[3 * i], 3, out + 5);
            std::copy_n(&st.stress[6 * i], 6, out + 8);
        },
        [&](index_t r, const double* in) {
            std::copy_n(in, 5, &Wb[5 * r]);
            std::copy_n(in + 5, 3, &qb[3 * r]);
            std::copy_n(in + 8, 6, &sb[6 * r]);
        });
    std::uint64_t cs[5] = {0, 0, 0, 0, 0};
    if (L.q == 0) {
        cs[0] = partial_checksum(Wb.data(), r0, nr, iota_cols(5), 5);
        cs[1] = partial_checksum(qb.data(), r0, nr, iota_cols(3), 3);
        cs[2] = partial_checksum(sb.data(), r0, nr, iota_cols(6), 6);
    }
    MPI_Allreduce(MPI_IN_PLACE, cs, 3, MPI_UINT64_T, MPI_SUM, L.world);

    const std::string tmp = path + ".tmp";
    {
        H5File w(L.world, tmp, "checkpoint '" + path + "'", H5File::Create);
        const hid_t root = w.root();
        {
            Hid g = w.group(root, "mesh");
            const BlockLayout wb{n, L.world_size};
            const index_t g0 = wb.begin(L.world_rank), ng = wb.end(L.world_rank) - g0;
            w.write(g.get(), "centroid", Shape{n, 3}, g0, ng, M.cell_centroid.data() + g0);
            w.write(g.get(), "volume", Shape{n}, g0, ng, M.cell_volume.data() + g0);
        }
        {
            Hid g = w.group(root, "velocity");
            const BlockLayout vb{nv, L.world_size};
            const index_t v0 = vb.begin(L.world_rank), nvl = vb.end(L.world_rank) - v0;
            w.write(g.get(), "u", Shape{nv, 3}, v0, nvl, grid.u.data() + v0);
            w.write(g.get(), "w", Shape{nv}, v0, nvl, grid.w.data() + v0);
        }
        {
            Hid g = w.group(root, "state");
            const index_t nr_macro = L.q == 0 ? nr : 0;
            const std::vector<double>* macro_data[3] = {&Wb, &qb, &sb};
            const char* macro_names[3] = {"W", "q", "stress"};
            const index_t macro_width[3] = {5, 3, 6};
            for (int k = 0; k < 3; ++k) {
                Hid d = w.write(g.get(), macro_names[k], Shape{n, macro_width[k]}, r0, nr_macro,
                                macro_data[k]->data());
                w.attribute(d.get(), "checksum", cs[k]);
            }
            // h and b: one collective write per chunk (chunks.count_all on every rank; a rank
            // without more columns writes an empty selection), the checksum summed over chunks.
            auto distribution = [&](const char* name, const std::vector<double>& f,
                                    std::uint64_t& checksum, bool fp32) {
                Hid d =
                    w.create(g.get(), name, fp32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, Shape{n, nv});
                for (long c = 0; c < chunks.count_all; ++c) {
                    const index_t k0 = chunks.begin(c), wc = chunks.end(c) - k0;
                    const Columns part = sub_columns(cols, k0, k0 + wc);
                    const std::vector<index_t> at = slot_offsets(part, B, ncl);
                    if (wc > 0) {
                        block.resize(static_cast<std::size_t>(nr * wc));
                        to_blocks.move(
                            wc, send, recv,
                            [&](index_t i, double* out) {
                                for (index_t k = 0; k < wc; ++k) out[k] = f[at[k] + i * B];
                            },
                            [&](index_t r, const double* in) {
                                std::copy_n(in, wc, block.data() + r * wc);
                            });
                        checksum += partial_checksum(block.data(), r0, nr, part.global, nv);
                    }
                    w.write_rows(d.get(), name, H5T_NATIVE_DOUBLE, r0, wc > 0 ? nr : 0, part.runs(),
                                 block.data());
                }
                MPI_Allreduce(MPI_IN_PLACE, &checksum, 1, MPI_UINT64_T, MPI_SUM, L.world);
                w.attribute(d.get(), "checksum", checksum);
            };
            distribution("h", st.h, cs[3], st.fp32);
            if (where.store_b) distribution("b", st.b, cs[4], st.fp32);
            if (frozen) {
                Hid d =
                    w.write(g.get(), "limiter_W", Shape{n, 5}, r0, L.q == 0 ? nr : 0, lb.data());
                w.attribute(d.get(), "checksum", lim[1]);
                distribution("limiter_h", st.limiter.h, lim[2], false);
                if (where.store_b) distribution("limiter_b", st.limiter.b, lim[3], false);
            }
        }
        // Root attributes (the same values on every rank: rank 0's clock), then their checksum.
        CheckpointInfo info;
        info.format_version = kCheckpointFormatVersion;
        info.step = st.step;
        info.time = st.time;
        info.config = config_yaml;
        info.version = std::string(version_string) + " (" + git_commit + ")";
        info.run_id = run_id;
        info.written_at =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        MPI_Bcast(&info.written_at, 1, MPI_DOUBLE, 0, L.world);
        const std::int64_t store_b = where.store_b ? 1 : 0;
        if (!where.store_b) cs[4] = 0;
        w.string_attribute(root, "format", "ugks_checkpoint");
        w.attribute(root, "format_version", std::int64_t{kCheckpointFormatVersion});
        w.attribute(root, "step", std::int64_t{st.step});
        w.attribute(root, "time", st.time);
        w.attribute(root, "velocity_dim", std::int64_t{grid.dim});
        w.attribute(root, "K_int", std::int64_t{where.K_int});
        w.attribute(root, "store_b", store_b);
        w.string_attribute(root, "config", config_yaml);
        w.string_attribute(root, "ugks_version", info.version);
        w.string_attribute(root, "run_id", run_id);
        w.attribute(root, "written_at", info.written_at);
        w.attribute(root, "limiter_frozen_step", static_cast<std::int64_t>(lim[0]));
        w.attribute(root, "attribute_checksum",
                    checkpoint_attribute_checksum(info, grid.dim, where.K_int, store_b, cs, lim));
        w.close();
    }
    // Flush to stable storage, then rename: a crash leaves either the old or the new file.
    on_root_then_agree(L.world, [&] {
        // Fault injection for the tests (tests/cli/checkpoint.sh, scenario "killed"):
        // UGKS_TEST_KILL_CHECKPOINT=N kills rank 0 with SIGKILL after the N-th checkpoint's
        // temporary file is complete, before it is flushed and renamed.
        static int written = 0;
        ++written;
        if (const char* k = std::getenv("UGKS_TEST_KILL_CHECKPOINT"))
            if (std::atoi(k) == written) std::raise(SIGKILL);
        const int fd = ::open(tmp.c_str(), O_RDONLY);
        if (fd < 0) bad(path, "cannot reopen '" + tmp + "' to flush it");
        const bool synced = ::fsync(fd) == 0 || errno == EINVAL || errno == EROFS;
        ::close(fd);
        if (!synced) bad(path, "flushing '" + tmp + "' failed: " + std::strerror(errno));
        if (std::rename(tmp.c_str(), path.c_str()) != 0)
            bad(path, "cannot rename '" + tmp + "' to it: " + std::strerror(errno));
        std::string dir = std::filesystem::path(path).parent_path().string();
        if (dir.empty()) dir = ".";
        const int dfd = ::open(dir.c_str(), O_RDONLY);
        if (dfd >= 0) {
            (void)::fsync(dfd);
            ::close(dfd);
        }
    });
}

CheckpointState read_checkpoint(const std::string& path, const CheckpointLayout& where,
                                CheckpointInfo* info) {
    const PhaseSpaceLayout& L = *where.layout;
    const LocalMesh& loc = *where.local;
    const VelocityBlocks& blocks = *where.blocks;
    const index_t n = where.global_mesh->n_cells(), nv = where.grid->size();
    const index_t ncl = loc.n_owned + loc.n_ghost, no = loc.n_owned;

    // Metadata, mesh and velocity grid: rank 0 checks them serially; all ranks agree.
    Stored s;
    on_root_then_agree(L.world, [&] { s = validate_serial(path, where); });
    {
        long long step = s.info.step;
        MPI_Bcast(&step, 1, MPI_LONG_LONG, 0, L.world);
        s.info.step = static_cast<long>(step);
        MPI_Bcast(&s.info.time, 1, MPI_DOUBLE, 0, L.world);
        MPI_Bcast(s.checksum, 5, MPI_UINT64_T, 0, L.world);
        MPI_Bcast(s.limiter, 4, MPI_UINT64_T, 0, L.world);
        MPI_Bcast(&s.info.written_at, 1, MPI_DOUBLE, 0, L.world);
        MPI_Bcast(&s.info.format_version, 1, MPI_INT, 0, L.world);
        bcast_string(s.info.config, L.world);
        bcast_string(s.info.version, L.world);
        bcast_string(s.info.run_id, L.world);
    }

    // Each velocity group reads contiguous blocks of global cells over its comm_x (this rank's
    // velocity columns only) and sends the rows of every local cell (owned and ghost) to the
    // rank that holds it: the macroscopic rows at once, the distributions chunk by chunk of
    // columns (transfer buffers: block nr rows, send the rows others ask of this block, receive
    // ncl rows; each within chunk_bytes), straight into the returned state.
    const Columns cols = rank_columns(blocks, L.q);
    const index_t nw = static_cast<index_t>(cols.global.size());
    const BlockLayout cb{n, L.P_x};
    const index_t r0 = cb.begin(L.p), nr = cb.end(L.p) - r0;
    const Route from_blocks = pull_route(L.comm_x, cb, loc.global_cell);
    const ColumnChunks chunks =
        column_chunks(L, nw, std::max({nr, from_blocks.n_send(), from_blocks.n_recv()}),
                      chunk_bytes(L.world, path));
    int first = 0, count = 0;
    blocks.range(L.q, first, count);
    const index_t B = blocks.block_size;
    CheckpointState st;
    st.step = s.info.step;
    st.time = s.info.time;
    std::uint64_t cs[5] = {0, 0, 0, 0, 0}, lc[3] = {0, 0, 0};
    {
        const H5File r(L.world, path, "checkpoint '" + path + "'", H5File::ReadOnly);
        std::vector<double> blk[3];
        const index_t widths[3] = {5, 3, 6};
        for (int k = 0; k < 3; ++k) blk[k] = r.read(kStateNames[k], r0, nr, {{0, widths[k]}});
        if (L.q == 0) {
            cs[0] = partial_checksum(blk[0].data(), r0, nr, iota_cols(5), 5);
            cs[1] = partial_checksum(blk[1].data(), r0, nr, iota_cols(3), 3);
            cs[2] = partial_checksum(blk[2].data(), r0, nr, iota_cols(6), 6);
        }
        std::vector<double> send, recv;  // transfer buffers, reused for every chunk
        st.W.resize(5 * ncl);
        st.q.resize(3 * ncl);
        st.stress.resize(6 * no);
        from_blocks.move(
            14, send, recv,
            [&](index_t row, double* out) {
                std::copy_n(&blk[0][5 * row], 5, out);
                std::copy_n(&blk[1][3 * row], 3, out + 5);
                std::copy_n(&blk[2][6 * row], 6, out + 8);
            },
            [&](index_t i, const double* in) {
                std::copy_n(in, 5, &st.W[5 * i]);
                std::copy_n(in + 5, 3, &st.q[3 * i]);
                if (i < no) std::copy_n(in + 8, 6, &st.stress[6 * i]);
            });
        for (auto& v : blk) std::vector<double>().swap(v);

        std::vector<double> block;
        auto distribution = [&](const char* name, std::uint64_t& checksum, std::vector<double>& f) {
            f.assign(static_cast<std::size_t>(count) * B * ncl, 0.0);
            Hid d = r.open(name);
            for (long c = 0; c < chunks.count_all; ++c) {
                const index_t k0 = chunks.begin(c), wc = chunks.end(c) - k0;
                const Columns part = sub_columns(cols, k0, k0 + wc);
                const std::vector<index_t> at = slot_offsets(part, B, ncl);
                r.read_rows(d.get(), name, r0, wc > 0 ? nr : 0, part.runs(), block);
                if (wc == 0) continue;
                checksum += partial_checksum(block.data(), r0, nr, part.global, nv);
                from_blocks.move(
                    wc, send, recv,
                    [&](index_t row, double* out) {
                        std::copy_n(block.data() + row * wc, wc, out);
                    },
                    [&](index_t i, const double* in) {
                        for (index_t j = 0; j < wc; ++j) f[at[j] + i * B] = in[j];
                    });
            }
        };
        distribution(kStateNames[3], cs[3], st.h);
        if (where.store_b) distribution(kStateNames[4], cs[4], st.b);
        if (s.limiter_step() >= 0) {
            st.limiter.step = s.limiter_step();
            const std::vector<double> lw = r.read(kLimiterNames[0], r0, nr, {{0, 5}});
            if (L.q == 0) lc[0] = partial_checksum(lw.data(), r0, nr, iota_cols(5), 5);
            st.limiter.W.resize(5 * ncl);
            from_blocks.move(
                5, send, recv, [&](index_t row, double* out) { std::copy_n(&lw[5 * row], 5, out); },
                [&](index_t i, const double* in) { std::copy_n(in, 5, &st.limiter.W[5 * i]); });
            distribution(kLimiterNames[1], lc[1], st.limiter.h);
            if (where.store_b) distribution(kLimiterNames[2], lc[2], st.limiter.b);
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, cs, 5, MPI_UINT64_T, MPI_SUM, L.world);
    MPI_Allreduce(MPI_IN_PLACE, lc, 3, MPI_UINT64_T, MPI_SUM, L.world);
    for (int k = 0; k < 5; ++k)
        if (cs[k] != s.checksum[k])
            bad(path, std::string("checksum mismatch in dataset '") + kStateNames[k] +
                          "': the file is corrupted (stored " + std::to_string(s.checksum[k]) +
                          ", computed " + std::to_string(cs[k]) + ")");
    for (int k = 0; k < 3 && s.limiter_step() >= 0; ++k)
        if (lc[k] != s.limiter[1 + k])
            bad(path, std::string("checksum mismatch in dataset '") + kLimiterNames[k] +
                          "': the file is corrupted (stored " + std::to_string(s.limiter[1 + k]) +
                          ", computed " + std::to_string(lc[k]) + ")");
    if (info) *info = s.info;
    return st;
}

}  // namespace ugks
