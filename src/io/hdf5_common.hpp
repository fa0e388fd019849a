#pragma once
// Internal helpers of the HDF5 files of src/io (fields, surfaces, checkpoints): the one parallel
// HDF5 file (H5File) that writes and reads them, a serial reader (H5Reader), and the MPI and text
// helpers around them. Not installed.
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "ugks/core/error.hpp"
#include "ugks/core/types.hpp"

namespace ugks::io_detail {

/// Owns one HDF5 identifier; closes it with the matching H5?close.
class Hid {
public:
    using Closer = herr_t (*)(hid_t);
    Hid() = default;
    Hid(hid_t id, Closer closer) : m_id(id), m_closer(closer) {}
    Hid(const Hid&) = delete;
    Hid& operator=(const Hid&) = delete;
    Hid(Hid&& o) noexcept : m_id(o.m_id), m_closer(o.m_closer) { o.m_id = -1; }
    Hid& operator=(Hid&& o) noexcept {
        if (this != &o) {
            close();
            m_id = o.m_id;
            m_closer = o.m_closer;
            o.m_id = -1;
        }
        return *this;
    }
    ~Hid() { close(); }
    hid_t get() const { return m_id; }
    bool valid() const { return m_id >= 0; }
    herr_t close() {
        herr_t status = 0;
        if (m_id >= 0 && m_closer) status = m_closer(m_id);
        m_id = -1;
        return status;
    }

private:
    hid_t m_id = -1;
    Closer m_closer = nullptr;
};

/// Silences HDF5's automatic error-stack printing while alive: failures are reported as
/// InputError messages instead of pages of HDF5 traces.
class QuietHdf5 {
public:
    QuietHdf5() {
        H5Eget_auto2(H5E_DEFAULT, &m_func, &m_data);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, m_func, m_data); }
    QuietHdf5(const QuietHdf5&) = delete;
    QuietHdf5& operator=(const QuietHdf5&) = delete;

private:
    H5E_auto2_t m_func = nullptr;
    void* m_data = nullptr;
};

/// The innermost message on HDF5's error stack: what the last failed HDF5 call of this thread
/// found (every HDF5 call clears the stack when it starts), "" when the stack is empty.
inline std::string hdf5_reason() {
    std::string reason;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_UPWARD,
        [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
            auto& out = *static_cast<std::string*>(data);
            if (out.empty() && e && e->desc && *e->desc) out = e->desc;
            return 0;
        },
        &reason);
    return reason;
}

/// InputError "<label>: <what>", with what HDF5 found when its last call failed: a failed
/// metadata checksum (a changed byte in an object header, e.g. an attribute) is named as damage.
[[noreturn]] inline void fail_hdf5(const std::string& label, const std::string& what) {
    const std::string reason = hdf5_reason();
    if (reason.find("checksum") != std::string::npos)
        UGKS_INPUT_ERROR(label << ": " << what
                               << ": the file is damaged (HDF5 metadata checksum failed: " << reason
                               << ")");
    UGKS_INPUT_ERROR(label << ": " << what);
}

/// HDF5 types of a value type of the files: little-endian in the file, native in memory, and its
/// name in messages.
struct H5Types {
    hid_t file, memory;
    const char* name;
};
template <class T>
H5Types h5_types() {
    if constexpr (std::is_same_v<T, double>)
        return {H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, "double"};
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return {H5T_STD_I32LE, H5T_NATIVE_INT32, "int32"};
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return {H5T_STD_I64LE, H5T_NATIVE_INT64, "int64"};
    else {
        static_assert(std::is_same_v<T, std::uint64_t>, "no HDF5 type for this value type");
        return {H5T_STD_U64LE, H5T_NATIVE_UINT64, "uint64"};
    }
}

/// Write an attribute of `count` values (a scalar when count == 0) on `loc`. Returns false on any
/// HDF5 failure (the caller reports it collectively).
inline bool write_attribute(hid_t loc, const char* name, hid_t file_type, hid_t mem_type,
                            const void* value, hsize_t count = 0) {
    Hid space(count == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose);
    bool ok = space.valid();
    Hid attr;
    if (ok) {
        attr =
            Hid(H5Acreate2(loc, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        ok = attr.valid();
    }
    if (ok) ok = H5Awrite(attr.get(), mem_type, value) >= 0;
    if (ok) ok = attr.close() >= 0;
    return ok;
}

/// Write a string attribute: variable-length, UTF-8 (h5py reads it as str; a fixed-length string
/// comes back as bytes). Every rank writes the same value, as for all attributes.
inline bool write_string_attribute(hid_t loc, const char* name, const std::string& value) {
    Hid type(H5Tcopy(H5T_C_S1), H5Tclose);
    const bool ok = type.valid() && H5Tset_size(type.get(), H5T_VARIABLE) >= 0 &&
                    H5Tset_strpad(type.get(), H5T_STR_NULLTERM) >= 0 &&
                    H5Tset_cset(type.get(), H5T_CSET_UTF8) >= 0;
    const char* text = value.c_str();
    return ok && write_attribute(loc, name, type.get(), type.get(), &text);
}

/// Contiguous blocks of a global index range [0, n) over `parts` ranks (the first n % parts blocks
/// one row longer). Every rank writes exactly its block of each dataset.
struct BlockLayout {
    index_t n = 0;
    int parts = 1;
    index_t begin(int r) const {
        const index_t q = n / parts, rem = n % parts;
        return r * q + std::min<index_t>(r, rem);
    }
    index_t end(int r) const { return begin(r + 1); }
    int owner(index_t g) const {
        const index_t q = n / parts, rem = n % parts;
        if (g < rem * (q + 1)) return static_cast<int>(g / (q + 1));
        return static_cast<int>(rem + (g - rem * (q + 1)) / q);
    }
};

inline bool all_ok(MPI_Comm comm, bool ok) {
    int local = ok ? 1 : 0;
    int global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MIN, comm);
    return global == 1;
}

/// Broadcast a std::vector or std::string from rank 0 (resized on the other ranks), in chunks
/// whose counts fit an int.
template <class Sequence>
void bcast_sequence(Sequence& v, MPI_Datatype type, MPI_Comm comm) {
    unsigned long long len = v.size();
    MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    v.resize(len);
    for (unsigned long long off = 0; off < len;) {
        const int chunk = static_cast<int>(std::min<unsigned long long>(len - off, 1u << 28));
        MPI_Bcast(v.data() + off, chunk, type, 0, comm);
        off += static_cast<unsigned long long>(chunk);
    }
}

inline void bcast_string(std::string& s, MPI_Comm comm) { bcast_sequence(s, MPI_CHAR, comm); }

/// Rank 0 runs `body`; the outcome is broadcast so that every rank of `comm` either continues or
/// throws the same InputError (any exception of rank 0's, e.g. a file-system error, becomes one:
/// the files of src/io are inputs or outputs of the user's).
template <class F>
inline void on_root_then_agree(MPI_Comm comm, F&& body) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::string error;
    if (rank == 0) {
        try {
            body();
        } catch (const std::exception& e) {
            error = e.what();
            if (error.empty()) error = "unknown error";
        }
    }
    bcast_string(error, comm);
    if (!error.empty()) throw InputError(error);
}

inline std::string xml_escape(const std::string& s) {
    std::string out;
    for (char ch : s) {
        switch (ch) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                out += ch;
        }
    }
    return out;
}

/// InputError unless the directory of output file `path` exists.
inline void check_output_directory(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
        UGKS_INPUT_ERROR("output file '" << path << "': directory '" << parent.string()
                                         << "' does not exist");
}

/// Rename the finished temporary `tmp` to output file `path` (removing `tmp` if that fails).
inline void rename_output(const std::string& tmp, const std::string& path) {
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        UGKS_INPUT_ERROR("output file '" << path << "': cannot rename '" << tmp << "' to it");
    }
}

inline void write_text_atomically(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) UGKS_INPUT_ERROR("output file '" << path << "': cannot create '" << tmp << "'");
        out << text;
        out.close();
        if (!out) UGKS_INPUT_ERROR("output file '" << path << "': writing '" << tmp << "' failed");
    }
    rename_output(tmp, path);
}

// ---- the parallel HDF5 file ------------------------------------------------------------------

/// Global shape of a dataset of rows: `rows` x `cols`, or a 1-D array of `rows` values (cols == 0).
struct Shape {
    index_t rows = 0;
    index_t cols = 0;
    /// `width` values per row, a 1-D array for one value per row.
    static Shape of_width(index_t rows, index_t width) { return {rows, width == 1 ? 0 : width}; }
    index_t width() const { return cols > 0 ? cols : 1; }
};

/// Runs of consecutive columns of a 2-D dataset: (first column, column count).
using ColumnRuns = std::vector<std::pair<index_t, index_t>>;

/// A parallel HDF5 file, opened by every rank of `comm` through MPI-IO with collective transfers
/// (and collective metadata writes and 1.8 object headers, so that attributes over 64 KiB, long
/// configs, go to dense storage): the one writer and reader of the field, surface and checkpoint
/// files. Each rank writes (reads) its block of rows of a dataset. Every member is collective; a
/// failure on any rank makes every rank throw the same InputError, "<label>: ...". HDF5's own error
/// printing is off while the file is open.
class H5File {
public:
    enum Mode { Create, ReadOnly };

    /// Create (truncate) or open `file_name`; `label` names the file in messages, e.g.
    /// "output file 'fields.h5'" while writing its temporary.
    H5File(MPI_Comm comm, const std::string& file_name, std::string label, Mode mode)
        : m_comm(comm), m_name(file_name), m_label(std::move(label)) {
        Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
        bool ok = fapl.valid() && H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL) >= 0 &&
                  H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0;
        if (ok && mode == Create) ok = H5Pset_coll_metadata_write(fapl.get(), 1) >= 0;
        if (!all_ok(comm, ok)) fail("cannot set up parallel HDF5 access");
        m_file = Hid(mode == Create
                         ? H5Fcreate(file_name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get())
                         : H5Fopen(file_name.c_str(), H5F_ACC_RDONLY, fapl.get()),
                     H5Fclose);
        if (!all_ok(comm, m_file.valid())) {
            if (mode == ReadOnly) fail("cannot open (truncated or damaged file?)");
            const std::filesystem::path parent = std::filesystem::path(file_name).parent_path();
            fail("cannot create '" + file_name + "' (is directory '" +
                 (parent.empty() ? std::string(".") : parent.string()) + "' writable?)");
        }
        m_dxpl = Hid(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
        ok = m_dxpl.valid() && H5Pset_dxpl_mpio(m_dxpl.get(), H5FD_MPIO_COLLECTIVE) >= 0;
        if (!all_ok(comm, ok)) fail("cannot set up collective transfers");
    }
    H5File(const H5File&) = delete;
    H5File& operator=(const H5File&) = delete;

    hid_t root() const { return m_file.get(); }

    /// Unless every rank has `ok`: "<label>: <what> failed (file system full or not writable?)".
    void check_write(bool ok, const std::string& what) const {
        if (!all_ok(m_comm, ok)) fail(what + " failed (file system full or not writable?)");
    }
    /// Unless every rank has `ok`: "<label>: <what> failed (truncated or damaged file?)".
    void check_read(bool ok, const std::string& what) const {
        if (!all_ok(m_comm, ok)) fail(what + " failed (truncated or damaged file?)");
    }

    Hid group(hid_t loc, const std::string& name) const {
        Hid g(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        check_write(g.valid(), "creating group '" + name + "'");
        return g;
    }

    /// Create dataset `name` of `shape` (no fill pass: every element is written); returns it open.
    Hid create(hid_t loc, const std::string& name, hid_t file_type, Shape shape) const {
        const hsize_t dims[2] = {static_cast<hsize_t>(shape.rows),
                                 static_cast<hsize_t>(shape.cols)};
        Hid space(H5Screate_simple(shape.cols > 0 ? 2 : 1, dims, nullptr), H5Sclose);
        Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        bool ok =
            space.valid() && dcpl.valid() && H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER) >= 0;
        Hid dset;
        if (ok) {
            dset = Hid(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT,
                                  dcpl.get(), H5P_DEFAULT),
                       H5Dclose);
            ok = dset.valid();
        }
        check_write(ok, "creating dataset '" + name + "'");
        return dset;
    }

    /// Write this rank's part of `dset`: rows [row0, row0 + nr) x the column `runs` of a 2-D
    /// dataset (all of a 1-D one's), row-major in `buf`; nr = 0 or no runs: an empty selection.
    void write_rows(hid_t dset, const std::string& name, hid_t mem_type, index_t row0, index_t nr,
                    const ColumnRuns& runs, const void* buf) const {
        static const double dummy = 0.0;  // a non-null buffer for empty selections
        transfer(dset, row0, nr, runs, "writing dataset '" + name + "'", true,
                 [&](hid_t mem, hid_t space, std::size_t n) {
                     return H5Dwrite(dset, mem_type, mem, space, m_dxpl.get(),
                                     n > 0 ? buf : &dummy) >= 0;
                 });
    }

    /// create + write_rows of whole rows.
    template <class T>
    Hid write(hid_t loc, const std::string& name, Shape shape, index_t row0, index_t nr,
              const T* rows) const {
        Hid dset = create(loc, name, h5_types<T>().file, shape);
        write_rows(dset.get(), name, h5_types<T>().memory, row0, nr, {{0, shape.width()}}, rows);
        return dset;
    }

    /// Rows of 3-vectors (Vec3 is three packed doubles).
    Hid write(hid_t loc, const std::string& name, Shape shape, index_t row0, index_t nr,
              const Vec3* rows) const {
        static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 must be three packed doubles");
        UGKS_REQUIRE(shape.cols == 3,
                     "dataset '" << name << "' of Vec3 rows has " << shape.cols << " columns");
        return write(loc, name, shape, row0, nr, reinterpret_cast<const double*>(rows));
    }

    /// Open dataset `name` (a path from the root).
    Hid open(const std::string& name) const {
        Hid dset(H5Dopen2(m_file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
        check_read(dset.valid(), "reading dataset '" + name + "'");
        return dset;
    }

    /// Read this rank's part of `dset` into `out` (resized): rows [row0, row0 + nr) x the column
    /// `runs`, row-major, as doubles; nr = 0 or no runs: an empty selection.
    void read_rows(hid_t dset, const std::string& name, index_t row0, index_t nr,
                   const ColumnRuns& runs, std::vector<double>& out) const {
        double dummy = 0.0;
        out.clear();
        transfer(dset, row0, nr, runs, "reading dataset '" + name + "'", false,
                 [&](hid_t mem, hid_t space, std::size_t n) {
                     out.resize(n);
                     return H5Dread(dset, H5T_NATIVE_DOUBLE, mem, space, m_dxpl.get(),
                                    n > 0 ? out.data() : &dummy) >= 0;
                 });
    }

    /// open + read_rows.
    std::vector<double> read(const std::string& name, index_t row0, index_t nr,
                             const ColumnRuns& runs) const {
        std::vector<double> out;
        Hid dset = open(name);
        read_rows(dset.get(), name, row0, nr, runs, out);
        return out;
    }

    // Attributes: every rank writes the same value.
    void attribute(hid_t loc, const char* name, double value) const {
        typed_attribute(loc, name, &value);
    }
    void attribute(hid_t loc, const char* name, std::int64_t value) const {
        typed_attribute(loc, name, &value);
    }
    void attribute(hid_t loc, const char* name, std::uint64_t value) const {
        typed_attribute(loc, name, &value);
    }
    void attribute(hid_t loc, const char* name, const Vec3& value) const {
        typed_attribute(loc, name, value.data(), 3);
    }
    /// A soft link `name` in `loc` to `object` in the file `file` (a name relative to this file's
    /// directory: HDF5 and h5py resolve it from there).
    void external_link(hid_t loc, const std::string& name, const std::string& file,
                       const std::string& object) const {
        check_write(H5Lcreate_external(file.c_str(), object.c_str(), loc, name.c_str(), H5P_DEFAULT,
                                       H5P_DEFAULT) >= 0,
                    "creating the link '" + name + "' to " + file + ":" + object);
    }
    void string_attribute(hid_t loc, const char* name, const std::string& value) const {
        check_write(write_string_attribute(loc, name, value),
                    std::string("writing attribute '") + name + "'");
    }

    /// Close the file: this flushes the metadata, which can fail too (full disk). Close the
    /// groups and datasets first.
    void close() { check_write(m_file.close() >= 0, "closing '" + m_name + "'"); }

private:
    [[noreturn]] void fail(const std::string& what) const { fail_hdf5(m_label, what); }

    template <class T>
    void typed_attribute(hid_t loc, const char* name, const T* value, hsize_t count = 0) const {
        check_write(
            write_attribute(loc, name, h5_types<T>().file, h5_types<T>().memory, value, count),
            std::string("writing attribute '") + name + "'");
    }

    /// Select rows [row0, row0 + nr) x the column runs in `space` (2-D) or rows only (1-D).
    static bool select(hid_t space, bool two_d, index_t row0, index_t nr, const ColumnRuns& runs) {
        if (nr <= 0 || runs.empty()) return H5Sselect_none(space) >= 0;
        if (!two_d) {
            const hsize_t start = static_cast<hsize_t>(row0), count = static_cast<hsize_t>(nr);
            return H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &count, nullptr) >=
                   0;
        }
        bool ok = true;
        for (std::size_t k = 0; k < runs.size() && ok; ++k) {
            const hsize_t start[2] = {static_cast<hsize_t>(row0),
                                      static_cast<hsize_t>(runs[k].first)};
            const hsize_t count[2] = {static_cast<hsize_t>(nr),
                                      static_cast<hsize_t>(runs[k].second)};
            ok = H5Sselect_hyperslab(space, k == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, start, nullptr,
                                     count, nullptr) >= 0;
        }
        return ok;
    }

    /// One collective transfer of this rank's part of `dset`: `io(mem, space, n)` moves the `n`
    /// values of the selection between the file space and a row-major memory space.
    /// A dataset of no elements is skipped on every rank (HDF5 rejects transfers on it).
    template <class Io>
    void transfer(hid_t dset, index_t row0, index_t nr, const ColumnRuns& runs,
                  const std::string& what, bool writing, Io&& io) const {
        auto check = [&](bool ok) { writing ? check_write(ok, what) : check_read(ok, what); };
        Hid space(H5Dget_space(dset), H5Sclose);
        const int nd = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
        const hssize_t n_all = nd >= 0 ? H5Sget_simple_extent_npoints(space.get()) : -1;
        check(n_all >= 0);
        if (n_all == 0) return;
        const bool two_d = nd == 2;
        index_t w = 1;
        if (two_d) {
            w = 0;
            for (const auto& r : runs) w += r.second;
        }
        const bool any = nr > 0 && w > 0;
        const hsize_t mdims[2] = {static_cast<hsize_t>(std::max<index_t>(nr, 1)),
                                  static_cast<hsize_t>(std::max<index_t>(w, 1))};
        Hid mem(H5Screate_simple(two_d ? 2 : 1, mdims, nullptr), H5Sclose);
        bool ok = mem.valid() && select(space.get(), two_d, row0, nr, runs);
        if (ok && !any) ok = H5Sselect_none(mem.get()) >= 0;
        if (ok) ok = io(mem.get(), space.get(), any ? static_cast<std::size_t>(nr * w) : 0);
        check(ok);
    }

    const QuietHdf5 m_quiet;  // first: silent until every handle below is closed
    MPI_Comm m_comm;
    std::string m_name;
    std::string m_label;
    Hid m_file;
    Hid m_dxpl;
};

/// Write output file `path` through its temporary `path.tmp`: rank 0 checks that the directory
/// exists, `body(H5File&)` fills the created file, which is then closed and renamed to `path`. On
/// any failure the temporary is removed and every rank throws the same InputError.
template <class Body>
void write_output_h5(MPI_Comm comm, const std::string& path, Body&& body) {
    on_root_then_agree(comm, [&] { check_output_directory(path); });
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const std::string tmp = path + ".tmp";
    try {
        H5File file(comm, tmp, "output file '" + path + "'", H5File::Create);
        body(file);
        file.close();
    } catch (const InputError&) {
        if (rank == 0) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
        }
        throw;
    }
    on_root_then_agree(comm, [&] { rename_output(tmp, path); });
}

// ---- serial reading ----------------------------------------------------------------------------

/// An open HDF5 file read by one rank (validation and tools): shapes, whole datasets, attributes
/// of objects named by their path. Failures throw InputError "<label>: ...". The caller opens the
/// file (its messages for a missing or foreign file are its own) and keeps a QuietHdf5.
class H5Reader {
public:
    H5Reader(Hid file, std::string label) : m_file(std::move(file)), m_label(std::move(label)) {}

    std::vector<index_t> dims(const std::string& dataset) const {
        Hid space = dataspace(open(dataset), dataset);
        const int rank = H5Sget_simple_extent_ndims(space.get());
        if (rank < 0) fail("cannot read the shape of '" + dataset + "'");
        std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
        H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
        return std::vector<index_t>(dims.begin(), dims.end());
    }

    /// Every value of `dataset`, row-major.
    template <class T>
    std::vector<T> read(const std::string& dataset) const {
        Hid dset = open(dataset);
        const hssize_t count = H5Sget_simple_extent_npoints(dataspace(dset, dataset).get());
        if (count < 0) fail("cannot read the shape of '" + dataset + "'");
        std::vector<T> out(static_cast<std::size_t>(count));
        if (count > 0 && H5Dread(dset.get(), h5_types<T>().memory, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                 out.data()) < 0)
            fail("cannot read dataset '" + dataset + "' as " + h5_types<T>().name);
        return out;
    }

    bool has_attribute(const std::string& object, const std::string& name) const {
        const htri_t found =
            H5Aexists_by_name(m_file.get(), object.c_str(), name.c_str(), H5P_DEFAULT);
        if (found < 0) fail("cannot read the attributes of '" + object + "'");
        return found > 0;
    }

    template <class T>
    T scalar_attribute(const std::string& object, const std::string& name) const {
        Hid attr = attribute(object, name);
        Hid space(H5Aget_space(attr.get()), H5Sclose);
        T value{};
        if (!space.valid() || H5Sget_simple_extent_npoints(space.get()) != 1 ||
            H5Aread(attr.get(), h5_types<T>().memory, &value) < 0)
            fail("attribute '" + name + "' on '" + object + "' is not a numeric scalar");
        return value;
    }

    /// A fixed- or variable-length string attribute.
    std::string string_attribute(const std::string& object, const std::string& name) const {
        Hid attr = attribute(object, name);
        Hid type(H5Aget_type(attr.get()), H5Tclose);
        if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING)
            fail("attribute '" + name + "' on '" + object + "' is not a string");
        Hid mem(H5Tcopy(H5T_C_S1), H5Tclose);
        std::string value;
        // HDF5 does not convert between ASCII and UTF-8: read in the file's character set.
        bool ok = mem.valid() && H5Tset_cset(mem.get(), H5Tget_cset(type.get())) >= 0;
        if (ok && H5Tis_variable_str(type.get()) > 0) {
            ok = H5Tset_size(mem.get(), H5T_VARIABLE) >= 0;
            char* text = nullptr;
            if (ok) ok = H5Aread(attr.get(), mem.get(), &text) >= 0;
            if (ok && text) value = text;
            if (text) H5free_memory(text);
        } else if (ok) {
            const std::size_t len = H5Tget_size(type.get());
            std::vector<char> buf(len + 1, '\0');
            ok = H5Tset_size(mem.get(), len + 1) >= 0 &&
                 H5Tset_strpad(mem.get(), H5T_STR_NULLTERM) >= 0 &&
                 H5Aread(attr.get(), mem.get(), buf.data()) >= 0;
            if (ok) value = buf.data();
        }
        if (!ok) fail("cannot read string attribute '" + name + "' on '" + object + "'");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { fail_hdf5(m_label, what); }

    Hid open(const std::string& dataset) const {
        Hid dset(H5Dopen2(m_file.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
        if (!dset.valid()) fail("no dataset '" + dataset + "'");
        return dset;
    }

    Hid dataspace(const Hid& dset, const std::string& dataset) const {
        Hid space(H5Dget_space(dset.get()), H5Sclose);
        if (!space.valid()) fail("cannot read the shape of '" + dataset + "'");
        return space;
    }

    Hid attribute(const std::string& object, const std::string& name) const {
        if (!has_attribute(object, name)) fail("no attribute '" + name + "' on '" + object + "'");
        Hid attr(
            H5Aopen_by_name(m_file.get(), object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
            H5Aclose);
        if (!attr.valid()) fail("cannot open attribute '" + name + "' on '" + object + "'");
        return attr;
    }

    Hid m_file;
    std::string m_label;
};

}  // namespace ugks::io_detail
