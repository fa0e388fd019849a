#pragma once
// Internal helpers shared by the HDF5 writers of src/io (fields and surfaces). Not installed.
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

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

/// Write an attribute of `count` values of `type` (a scalar when count == 0) on `loc`. Returns
/// false on any HDF5 failure (the caller reports it collectively).
inline bool write_attribute(hid_t loc, const char* name, hid_t type, const void* value,
                            hsize_t count = 0) {
    Hid space(count == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose);
    bool ok = space.valid();
    Hid attr;
    if (ok) {
        attr = Hid(H5Acreate2(loc, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        ok = attr.valid();
    }
    if (ok) ok = H5Awrite(attr.get(), type, value) >= 0;
    if (ok) ok = attr.close() >= 0;
    return ok;
}

/// Write a string attribute: fixed-length, null-terminated UTF-8, readable by every tool and safe
/// in parallel (variable-length data cannot be written by parallel HDF5).
inline bool write_string_attribute(hid_t loc, const char* name, const std::string& value) {
    Hid type(H5Tcopy(H5T_C_S1), H5Tclose);
    const bool ok = type.valid() && H5Tset_size(type.get(), value.size() + 1) >= 0 &&
                    H5Tset_strpad(type.get(), H5T_STR_NULLTERM) >= 0 &&
                    H5Tset_cset(type.get(), H5T_CSET_UTF8) >= 0;
    return ok && write_attribute(loc, name, type.get(), value.c_str());
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

inline void bcast_string(std::string& s, MPI_Comm comm) {
    unsigned long long len = s.size();
    MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    s.resize(len);
    for (unsigned long long off = 0; off < len;) {
        const int chunk = static_cast<int>(std::min<unsigned long long>(len - off, 1u << 30));
        MPI_Bcast(s.data() + off, chunk, MPI_CHAR, 0, comm);
        off += static_cast<unsigned long long>(chunk);
    }
}

/// Rank 0 runs `body` (which may throw InputError); the outcome is broadcast so that every rank
/// of `comm` either continues or throws the same InputError.
template <class F>
inline void on_root_then_agree(MPI_Comm comm, F&& body) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::string error;
    if (rank == 0) {
        try {
            body();
        } catch (const InputError& e) {
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

inline void write_text_atomically(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) UGKS_INPUT_ERROR("output file '" << path << "': cannot create '" << tmp << "'");
        out << text;
        out.close();
        if (!out) UGKS_INPUT_ERROR("output file '" << path << "': writing '" << tmp << "' failed");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        UGKS_INPUT_ERROR("output file '" << path << "': cannot rename '" << tmp << "' to it");
    }
}

}  // namespace ugks::io_detail
