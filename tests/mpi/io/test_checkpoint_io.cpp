// Checkpoint writer and reader (write_checkpoint / read_checkpoint): the distributions travel in
// chunks of velocity columns (kCheckpointChunkBytes, test override
// UGKS_TEST_CHECKPOINT_CHUNK_BYTES). Whatever the chunk size and the decomposition (P_x x P_v,
// padded velocity blocks, METIS partition with ghosts), the file holds the same datasets and
// checksums, and reading it back restores the state exactly. Runs under 1, 2 and 4 ranks: with 2
// and 4, P_v = 1 (P_x > 1), P_v = world size (P_x = 1) and, on 4, P_x = P_v = 2; with small
// chunks the velocity groups have different numbers of chunks (uneven columns per group).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "ugks/core/error.hpp"
#include "ugks/io/checkpoint_io.hpp"
#include "ugks/mesh/sources.hpp"

namespace {

using ugks::index_t;

int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
int world_size() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

const char* const kChunkVar = "UGKS_TEST_CHECKPOINT_CHUNK_BYTES";

/// Sets (or, with nullopt, removes) the chunk-size override on every rank while alive.
class ChunkBytes {
public:
    explicit ChunkBytes(std::optional<std::string> v) {
        if (v)
            setenv(kChunkVar, v->c_str(), 1);
        else
            unsetenv(kChunkVar);
    }
    ~ChunkBytes() { unsetenv(kChunkVar); }
    ChunkBytes(const ChunkBytes&) = delete;
    ChunkBytes& operator=(const ChunkBytes&) = delete;
};

// Values of the global cell g and global velocity k: every decomposition computes the same.
// Values from integer arithmetic, exact products by powers of two and one correctly rounded
// division each: the same bits however the compiler contracts or vectorizes them (no libm calls,
// whose vector versions may differ in the last bit in -march=native builds), so the state built
// here and the values checked later are bit-identical.
double h_of(index_t g, index_t k) {
    return 1.0 + 1.0 / (3.0 + static_cast<double>((7 * g + 13 * k) % 29)) + 0.0009765625 * g;
}
double b_of(index_t g, index_t k) {
    return 0.25 / (2.0 + static_cast<double>((5 * g + 11 * k) % 23)) - 0.0001220703125 * k;
}
double macro_of(index_t g, int j) { return 0.5 * (j + 1) + 1.0 / (8.0 + static_cast<double>(g)); }

/// One decomposition of the test case: layout, partition, local mesh, velocity blocks.
struct Decomposition {
    ugks::PhaseSpaceLayout L;
    ugks::LocalMesh local;
    ugks::VelocityBlocks blocks;
    ugks::CheckpointLayout where;
    int first = 0, count = 0;
    Decomposition(const ugks::Mesh& mesh, const ugks::VelocityGrid& grid, int pv, int B,
                  bool store_b) {
        L = ugks::make_layout(MPI_COMM_WORLD, pv);
        const std::vector<int> part = ugks::partition_cells(mesh, L.P_x, L.comm_x);
        local = ugks::build_local_mesh(mesh, part, L.p);
        blocks = ugks::make_velocity_blocks(grid, B, pv, {false, false, false});
        blocks.range(L.q, first, count);
        where = ugks::CheckpointLayout{&L, &mesh, &local, &grid, &blocks, store_b, 2};
    }
    ~Decomposition() { ugks::free_layout(L); }
    Decomposition(const Decomposition&) = delete;
    Decomposition& operator=(const Decomposition&) = delete;

    index_t ncl() const { return local.n_owned + local.n_ghost; }
    /// This rank's velocity columns (padded slots left out).
    index_t n_columns() const {
        index_t c = 0;
        for (index_t s = 0; s < static_cast<index_t>(count) * blocks.block_size; ++s)
            c += blocks.order[first * blocks.block_size + s] >= 0;
        return c;
    }

    /// The state a solver of this rank would hold; ghost rows of the macroscopic arrays and of
    /// the distributions are NaN (a checkpoint writes owned rows only), padded slots 0.
    ugks::CheckpointState state(bool ghosts_nan) const {
        ugks::CheckpointState st;
        st.step = 17;
        st.time = 0.8125;
        const index_t n = ncl(), no = local.n_owned, B = blocks.block_size;
        const double ghost = ghosts_nan ? NAN : 0.0;
        for (index_t i = 0; i < n; ++i) {
            const index_t g = local.global_cell[i];
            for (int j = 0; j < 5; ++j)
                st.W.push_back(i < no || !ghosts_nan ? macro_of(g, j) : ghost);
            for (int j = 0; j < 3; ++j)
                st.q.push_back(i < no || !ghosts_nan ? macro_of(g, 5 + j) : ghost);
            if (i < no)
                for (int j = 0; j < 6; ++j) st.stress.push_back(macro_of(g, 8 + j));
        }
        st.h.assign(static_cast<std::size_t>(count) * B * n, 0.0);
        if (where.store_b) st.b.assign(st.h.size(), 0.0);
        for (index_t m = 0; m < count; ++m)
            for (index_t i = 0; i < n; ++i)
                for (index_t v = 0; v < B; ++v) {
                    const index_t k = blocks.order[(first + m) * B + v];
                    if (k < 0) continue;
                    const index_t g = local.global_cell[i];
                    const bool nan = ghosts_nan && i >= local.n_owned;
                    st.h[(m * n + i) * B + v] = nan ? NAN : h_of(g, k);
                    if (where.store_b) st.b[(m * n + i) * B + v] = nan ? NAN : b_of(g, k);
                }
        return st;
    }
};

/// Everything of a checkpoint file that must not depend on the chunk size or the decomposition
/// (read serially on rank 0).
struct Content {
    std::map<std::string, std::vector<double>> data;
    std::map<std::string, std::vector<hsize_t>> dims;
    std::map<std::string, std::uint64_t> checksum;
    std::map<std::string, std::int64_t> ints;
    std::map<std::string, std::string> strings;
    double time = 0;
};

std::vector<double> read_all(hid_t f, const std::string& name, std::vector<hsize_t>& dims) {
    const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    EXPECT_GE(d, 0) << name;
    if (d < 0) return {};
    const hid_t s = H5Dget_space(d);
    dims.assign(static_cast<std::size_t>(H5Sget_simple_extent_ndims(s)), 0);
    H5Sget_simple_extent_dims(s, dims.data(), nullptr);
    std::vector<double> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s)));
    EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0) << name;
    H5Sclose(s);
    H5Dclose(d);
    return v;
}

template <class T>
T read_attr(hid_t obj, const char* name, hid_t type) {
    T v{};
    const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    EXPECT_GE(a, 0) << name;
    if (a >= 0) {
        EXPECT_GE(H5Aread(a, type, &v), 0) << name;
        H5Aclose(a);
    }
    return v;
}

std::string read_string_attr(hid_t obj, const char* name) {
    const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    EXPECT_GE(a, 0) << name;
    if (a < 0) return {};
    const hid_t t = H5Aget_type(a);
    std::string s;
    if (H5Tis_variable_str(t) > 0) {  // the writer's form (variable-length UTF-8)
        char* text = nullptr;
        EXPECT_GE(H5Aread(a, t, &text), 0) << name;
        if (text) s = text;
        H5free_memory(text);
    } else {  // fixed-length, as version-1 files and other tools write it
        s.assign(H5Tget_size(t), '\0');
        EXPECT_GE(H5Aread(a, t, s.data()), 0) << name;
        s.resize(std::strlen(s.c_str()));
    }
    H5Tclose(t);
    H5Aclose(a);
    return s;
}

Content read_content(const std::string& path, bool store_b) {
    Content c;
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(f, 0) << path;
    if (f < 0) return c;
    std::vector<std::string> names = {"/mesh/centroid", "/mesh/volume", "/velocity/u",
                                      "/velocity/w",    "/state/W",     "/state/q",
                                      "/state/stress",  "/state/h"};
    if (store_b) names.push_back("/state/b");
    EXPECT_EQ(H5Lexists(f, "/state/b", H5P_DEFAULT) > 0, store_b);
    for (const std::string& n : names) {
        c.data[n] = read_all(f, n, c.dims[n]);
        if (n.rfind("/state/", 0) == 0) {
            const hid_t d = H5Dopen2(f, n.c_str(), H5P_DEFAULT);
            c.checksum[n] = read_attr<std::uint64_t>(d, "checksum", H5T_NATIVE_UINT64);
            H5Dclose(d);
        }
    }
    for (const char* a : {"format_version", "step", "velocity_dim", "K_int", "store_b"})
        c.ints[a] = read_attr<std::int64_t>(f, a, H5T_NATIVE_INT64);
    for (const char* a : {"format", "config", "ugks_version"})
        c.strings[a] = read_string_attr(f, a);
    c.time = read_attr<double>(f, "time", H5T_NATIVE_DOUBLE);
    H5Fclose(f);
    return c;
}

void expect_same_content(const Content& a, const Content& b, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(a.dims, b.dims);
    EXPECT_EQ(a.checksum, b.checksum);
    EXPECT_EQ(a.ints, b.ints);
    EXPECT_EQ(a.strings, b.strings);
    EXPECT_EQ(a.time, b.time);
    ASSERT_EQ(a.data.size(), b.data.size());
    for (const auto& [name, v] : a.data) {
        const std::vector<double>& w = b.data.at(name);
        ASSERT_EQ(v.size(), w.size()) << name;
        EXPECT_EQ(std::memcmp(v.data(), w.data(), v.size() * sizeof(double)), 0) << name;
    }
}

/// The file against the analytic values and its checksum attributes against the data.
void expect_content_correct(const Content& c, index_t n, const ugks::VelocityGrid& grid,
                            bool store_b) {
    const index_t nv = grid.size();
    for (const auto& [name, sum] : c.checksum) {
        const std::vector<double>& v = c.data.at(name);
        std::uint64_t s = 0;
        for (std::size_t i = 0; i < v.size(); ++i) s += ugks::checkpoint_element_hash(i, v[i]);
        EXPECT_EQ(s, sum) << name;
    }
    const std::vector<double>& W = c.data.at("/state/W");
    const std::vector<double>& h = c.data.at("/state/h");
    ASSERT_EQ(W.size(), static_cast<std::size_t>(5 * n));
    ASSERT_EQ(h.size(), static_cast<std::size_t>(n * nv));
    for (index_t g = 0; g < n; ++g) {
        for (int j = 0; j < 5; ++j) ASSERT_EQ(W[5 * g + j], macro_of(g, j)) << g;
        for (int j = 0; j < 6; ++j)
            ASSERT_EQ(c.data.at("/state/stress")[6 * g + j], macro_of(g, 8 + j)) << g;
        for (index_t k = 0; k < nv; ++k) {
            ASSERT_EQ(h[g * nv + k], h_of(g, k)) << g << " " << k;
            if (store_b) ASSERT_EQ(c.data.at("/state/b")[g * nv + k], b_of(g, k)) << g << " " << k;
        }
    }
    EXPECT_EQ(c.ints.at("step"), 17);
    EXPECT_EQ(c.time, 0.8125);
}

/// Bitwise equality of the state read back with the state of every local cell (ghosts too).
void expect_state_restored(const ugks::CheckpointState& got, const ugks::CheckpointState& want,
                           const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(got.step, want.step);
    EXPECT_EQ(got.time, want.time);
    auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
        return a.size() == b.size() &&
               std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
    };
    EXPECT_TRUE(same(got.W, want.W));
    EXPECT_TRUE(same(got.q, want.q));
    EXPECT_TRUE(same(got.stress, want.stress));
    EXPECT_TRUE(same(got.h, want.h));
    EXPECT_TRUE(same(got.b, want.b));
}

class CheckpointIo : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = ugks::test::temp_dir("checkpoint_io");
        ASSERT_FALSE(m_dir.empty());
        ugks::BoxSpec spec;
        spec.dim = 3;
        spec.n = {7, 5, 3};  // 105 cells: row blocks of uneven length over P_x = 2 and 4
        spec.hi = {1.4, 1.0, 0.6};
        spec.cell_type = "hexa";
        m_mesh = ugks::make_box(spec);
        // 4 x 3 x 3 = 36 velocities in blocks of 5: 8 blocks, 4 padded slots, so the velocity
        // groups of P_v = 2 and 4 hold different numbers of columns.
        std::array<std::vector<double>, 3> x, w;
        const int counts[3] = {4, 3, 3};
        for (int d = 0; d < 3; ++d) ugks::gauss_hermite_1d(counts[d], 1.0, 0.1 * d, x[d], w[d]);
        m_grid = ugks::make_tensor_velocity_grid(3, x, w, "gauss_hermite");
    }
    void TearDown() override {
        MPI_Barrier(MPI_COMM_WORLD);
        if (world_rank() == 0 && !m_dir.empty()) {
            std::error_code ec;
            std::filesystem::remove_all(m_dir, ec);
        }
    }
    std::vector<int> velocity_rank_counts() const {
        const int p = world_size();
        std::vector<int> pv;
        for (int v = 1; v <= p; ++v)
            if (p % v == 0) pv.push_back(v);
        return pv;
    }
    std::string m_dir;
    ugks::Mesh m_mesh;
    ugks::VelocityGrid m_grid;
};

const char* kConfig = "case: checkpoint chunks\nchunk: [1, 3000, 20000, default]\n";

// Chunk sizes: 1 byte (one column per chunk: as many collective writes as columns, so the groups
// of P_v > 1 with fewer columns write empty selections at the end), a few columns, two chunks of
// uneven width on one rank, and the default (everything in one chunk here).
const std::vector<std::optional<std::string>> kChunkSizes = {"1", "3000", "20000", std::nullopt};

TEST_F(CheckpointIo, ChunkedWriteAndReadMatchForEveryChunkSizeAndLayout) {
    const index_t n = m_mesh.n_cells();
    for (bool store_b : {true, false}) {
        std::optional<Content> reference;  // P_v = 1, default chunk size
        for (int pv : velocity_rank_counts()) {
            const Decomposition s(m_mesh, m_grid, pv, 5, store_b);
            const std::string tag = std::string(store_b ? "hb" : "h") + "_pv" + std::to_string(pv);
            // The groups of P_v > 1 hold different numbers of columns (uneven chunk counts).
            if (pv > 1) {
                long nw_min = s.n_columns(), nw_max = s.n_columns();
                MPI_Allreduce(MPI_IN_PLACE, &nw_min, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
                MPI_Allreduce(MPI_IN_PLACE, &nw_max, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
                EXPECT_LT(nw_min, nw_max) << tag;
            }
            const ugks::CheckpointState written = s.state(true);
            const ugks::CheckpointState expected = s.state(false);
            std::vector<std::string> files;
            // Without b, the extremes only (one column per chunk, the default).
            const std::vector<std::optional<std::string>> sizes =
                store_b ? kChunkSizes : std::vector<std::optional<std::string>>{"1", std::nullopt};
            for (std::size_t c = 0; c < sizes.size(); ++c) {
                const std::string path =
                    m_dir + "/" + tag + "_chunk_" + sizes[c].value_or("default") + ".h5";
                {
                    const ChunkBytes env(sizes[c]);
                    ugks::write_checkpoint(path, s.where, kConfig, "0123456789abcdef", written);
                }
                files.push_back(path);
                // Read back with another chunk size than written with: the state is exact.
                const std::optional<std::string>& read_bytes = sizes[(c + 1) % sizes.size()];
                const ChunkBytes env(read_bytes);
                ugks::CheckpointInfo info;
                const ugks::CheckpointState got = ugks::read_checkpoint(path, s.where, &info);
                expect_state_restored(got, expected,
                                      path + " read with chunk " + read_bytes.value_or("default"));
                EXPECT_EQ(info.step, 17);
                EXPECT_EQ(info.config, kConfig);
                EXPECT_EQ(info.run_id, "0123456789abcdef");
                EXPECT_EQ(info.format_version, ugks::kCheckpointFormatVersion);
            }
            if (world_rank() == 0) {
                const Content dflt = read_content(files.back(), store_b);
                expect_content_correct(dflt, n, m_grid, store_b);
                for (const std::string& f : files)
                    expect_same_content(dflt, read_content(f, store_b), f);
                if (!reference)
                    reference = dflt;
                else
                    expect_same_content(*reference, dflt, tag + " against P_v = 1");
            }
        }
    }
}

TEST_F(CheckpointIo, RestartFromAnotherDecompositionWithSmallChunks) {
    // Written by P_v = 1 with the default chunk, read by every layout (B_v = 7) in chunks of a few
    // columns (and the other way round): the same state.
    const std::string path = m_dir + "/pv1.h5";
    {
        const Decomposition s(m_mesh, m_grid, 1, 5, true);
        ugks::write_checkpoint(path, s.where, kConfig, "0123456789abcdef", s.state(true));
    }
    for (int pv : velocity_rank_counts()) {
        const Decomposition s(m_mesh, m_grid, pv, 7, true);
        {
            const ChunkBytes env(std::string("3000"));
            expect_state_restored(ugks::read_checkpoint(path, s.where), s.state(false),
                                  "P_v = " + std::to_string(pv));
            ugks::write_checkpoint(m_dir + "/back.h5", s.where, kConfig, "0123456789abcdef",
                                   s.state(true));
        }
        const Decomposition s1(m_mesh, m_grid, 1, 5, true);
        expect_state_restored(ugks::read_checkpoint(m_dir + "/back.h5", s1.where), s1.state(false),
                              "back from P_v = " + std::to_string(pv));
    }
}

TEST_F(CheckpointIo, MalformedChunkOverrideIsAnInputErrorOnEveryRank) {
    const Decomposition s(m_mesh, m_grid, 1, 5, false);
    for (const char* bad : {"12x", "0", "-5", "abc"}) {
        const ChunkBytes env(std::string{bad});
        int threw = 0;
        try {
            ugks::write_checkpoint(m_dir + "/bad.h5", s.where, kConfig, "0123456789abcdef",
                                   s.state(true));
        } catch (const ugks::InputError& e) {
            threw = std::string(e.what()).find(std::string(kChunkVar) + "='" + bad +
                                               "': expected a positive number of bytes") !=
                    std::string::npos;
            EXPECT_EQ(threw, 1) << e.what();
        }
        int all = 0;
        MPI_Allreduce(&threw, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        EXPECT_EQ(all, world_size()) << bad;
        EXPECT_FALSE(std::filesystem::exists(m_dir + "/bad.h5"));
    }
}

/// Overwrite the int64 root attribute `name` of `path` (rank 0, serial HDF5): an edit that
/// HDF5's own metadata checksums do not see.
void set_root_int(const std::string& path, const char* name, std::int64_t value) {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0) << path;
    const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    ASSERT_GE(a, 0) << name;
    EXPECT_GE(H5Awrite(a, H5T_NATIVE_INT64, &value), 0);
    H5Aclose(a);
    H5Fclose(f);
}

// The root attributes are covered by attribute_checksum: a step changed to another valid value
// (which the range checks accept) is refused on every rank, naming the attributes.
TEST_F(CheckpointIo, ChangedRootAttributeIsRefused) {
    const Decomposition s(m_mesh, m_grid, 1, 5, true);
    const std::string path = m_dir + "/edited.h5";
    ugks::write_checkpoint(path, s.where, kConfig, "0123456789abcdef", s.state(true));
    if (world_rank() == 0) {
        EXPECT_EQ(ugks::read_checkpoint_header(path).step, 17);
        set_root_int(path, "step", 18);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int refused = 0;
    try {
        (void)ugks::read_checkpoint(path, s.where);
    } catch (const ugks::InputError& e) {
        refused = std::string(e.what()).find("checksum mismatch over the root attributes") !=
                  std::string::npos;
        EXPECT_EQ(refused, 1) << e.what();
    }
    int all = 0;
    MPI_Allreduce(&refused, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(all, world_size());
    if (world_rank() == 0) EXPECT_THROW(ugks::read_checkpoint_header(path), ugks::InputError);
}

// Pruning removes only the run's own older files: another run's checkpoints, files that cannot be
// read and the run's newest `keep` stay.
TEST_F(CheckpointIo, PruningTouchesOnlyTheRunsOwnCheckpoints) {
    const Decomposition s(m_mesh, m_grid, 1, 5, false);
    const std::string dir = m_dir + "/prune";
    if (world_rank() == 0) std::filesystem::create_directories(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    // run A at steps 200 and 400 (an earlier run), run B at steps 10, 20, 30
    auto write = [&](const std::string& run, long step) {
        ugks::CheckpointState st = s.state(true);
        st.step = step;
        ugks::write_checkpoint(dir + "/" + ugks::checkpoint_file_name(step), s.where, kConfig, run,
                               st);
    };
    write("aaaaaaaaaaaaaaaa", 200);
    write("aaaaaaaaaaaaaaaa", 400);
    for (long step : {10, 20, 30}) write("bbbbbbbbbbbbbbbb", step);
    if (world_rank() == 0) {
        // a damaged file with a checkpoint's name
        std::FILE* f = std::fopen((dir + "/checkpoint_000005.h5").c_str(), "wb");
        ASSERT_NE(f, nullptr);
        std::fputs("not HDF5", f);
        std::fclose(f);
        ugks::prune_checkpoints(dir, 2, "bbbbbbbbbbbbbbbb");
        std::vector<std::string> left;
        for (const std::string& p : ugks::list_checkpoints(dir))
            left.push_back(std::filesystem::path(p).filename().string());
        const std::vector<std::string> expected{"checkpoint_000400.h5", "checkpoint_000200.h5",
                                                "checkpoint_000030.h5", "checkpoint_000020.h5",
                                                "checkpoint_000005.h5"};
        EXPECT_EQ(left, expected);
        EXPECT_EQ(ugks::read_checkpoint_header(dir + "/checkpoint_000400.h5").run_id,
                  "aaaaaaaaaaaaaaaa");
        // a run without an id prunes nothing
        ugks::prune_checkpoints(dir, 1, "");
        EXPECT_EQ(ugks::list_checkpoints(dir).size(), 5u);
    }
}

// Run ids are 16 hexadecimal digits and differ between calls.
TEST(RunId, SixteenHexDigitsAndDistinct) {
    const std::string a = ugks::make_run_id(), b = ugks::make_run_id();
    EXPECT_EQ(a.size(), 16u);
    EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos) << a;
    EXPECT_NE(a, b);
}

}  // namespace
