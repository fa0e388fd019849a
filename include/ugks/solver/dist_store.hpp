#pragma once
/// Storage of the distributions h, b between the phases of a step (numerics.storage,
/// docs/decisions.md "Single-precision storage"): one array [block][cell][B] held in double
/// (fp64) or in single precision (fp32). Every formula reads and writes double: the fp32 store
/// rounds a value to the nearest float when it is stored, and reading gives that float exactly.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace ugks {

class DistStore {
public:
    /// n values, all zero, in the precision asked for.
    void assign(std::size_t n, bool fp32) {
        m_fp32 = fp32;
        m_d.assign(fp32 ? 0 : n, 0.0);
        m_f.assign(fp32 ? n : 0, 0.0f);
    }
    std::size_t size() const { return m_fp32 ? m_f.size() : m_d.size(); }
    bool fp32() const { return m_fp32; }
    /// Bytes of the stored values.
    std::size_t bytes() const { return m_fp32 ? 4 * m_f.size() : 8 * m_d.size(); }

    double get(std::size_t k) const { return m_fp32 ? static_cast<double>(m_f[k]) : m_d[k]; }
    /// v as this store would hold it (rounded to float with fp32 storage).
    double rounded(double v) const {
        return m_fp32 ? static_cast<double>(static_cast<float>(v)) : v;
    }
    void set(std::size_t k, double v) {
        if (m_fp32)
            m_f[k] = static_cast<float>(v);
        else
            m_d[k] = v;
    }
    /// The double values in place (fp64 storage; nullptr with fp32).
    double* f64(std::size_t at = 0) { return m_fp32 ? nullptr : m_d.data() + at; }
    /// n values from k on into out (double).
    void load(std::size_t k, std::size_t n, double* out) const {
        if (m_fp32)
            std::copy_n(m_f.data() + k, n, out);
        else
            std::copy_n(m_d.data() + k, n, out);
    }
    /// n values from in into k on (rounded to float with fp32 storage).
    void store(std::size_t k, std::size_t n, const double* in) {
        if (m_fp32)
            for (std::size_t j = 0; j < n; ++j) m_f[k + j] = static_cast<float>(in[j]);
        else
            std::copy_n(in, n, m_d.data() + k);
    }
    /// All values in double (a checkpoint's state).
    std::vector<double> to_double() const {
        if (!m_fp32) return m_d;
        return std::vector<double>(m_f.begin(), m_f.end());
    }
    /// All values from double (size() of them; rounded with fp32 storage).
    void from_double(const std::vector<double>& v) { store(0, v.size(), v.data()); }

private:
    bool m_fp32 = false;
    std::vector<double> m_d;
    std::vector<float> m_f;
};

}  // namespace ugks
