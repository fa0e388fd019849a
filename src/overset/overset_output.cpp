#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "../io/hdf5_common.hpp"
#include "ugks/core/error.hpp"
#include "ugks/io/xdmf.hpp"
#include "ugks/overset/cell_locate.hpp"
#include "ugks/overset/overset.hpp"

namespace ugks::overset {

namespace {

using io_detail::Hid;

struct Writer {
    std::string path;
    void check(bool ok, const std::string& what) const {
        if (!ok) UGKS_INPUT_ERROR("output file '" << path << "': " << what << " failed");
    }
    template <class T>
    void dataset(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                 const std::vector<T>& data, hsize_t cols = 1) const {
        const hsize_t rows = cols ? data.size() / cols : 0;
        const hsize_t dims[2] = {rows, cols};
        Hid space(H5Screate_simple(cols > 1 ? 2 : 1, dims, nullptr), H5Sclose);
        check(space.valid(), "dataspace of " + name);
        Hid d(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT),
              H5Dclose);
        check(d.valid(), "creating " + name);
        if (!data.empty())
            check(H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) >= 0,
                  "writing " + name);
    }
    Hid group(hid_t loc, const std::string& name) const {
        Hid g(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        check(g.valid(), "creating group " + name);
        return g;
    }
};

}  // namespace

std::string write_overset_step(const std::string& dir, long step, double time,
                               const OversetSystem& sys, const std::string& config_yaml) {
    char stem[32];
    std::snprintf(stem, sizeof stem, "overset_%06ld", step);
    const std::string h5_name = std::string(stem) + ".h5";
    const std::string path = dir + "/" + h5_name;
    const std::string tmp = path + ".tmp";
    Writer w{path};
    io_detail::QuietHdf5 quiet;
    std::ostringstream x;  // XDMF
    x.precision(17);
    x << kXdmfHead
      << "    <Grid Name=\"overset\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
      << "      <Time Value=\"" << time << "\"/>\n";
    auto item = [&](const std::string& dims, const char* type, int prec, const std::string& ds) {
        xdmf_data_item(x, "          ", dims, type, prec, h5_name, ds);
    };
    {
        Hid file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        w.check(file.valid(), "creating " + tmp);
        for (const OversetGrid& g : sys.grids) {
            const Mesh& m = g.mesh;
            const index_t n = m.n_nodes(), nc = m.n_cells();
            Hid root = w.group(file.get(), g.name);
            Hid gn = w.group(root.get(), "nodes");
            w.dataset(gn.get(), "xyz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g.xyz, 3);
            w.dataset(gn.get(), "wall_distance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                      g.wall_distance);
            std::vector<int> ns(g.node_status.begin(), g.node_status.end());
            w.dataset(gn.get(), "status", H5T_STD_I32LE, H5T_NATIVE_INT, ns);

            Hid gc = w.group(root.get(), "cells");
            std::vector<int> cs(g.cell_status.begin(), g.cell_status.end()), ct;
            w.dataset(gc.get(), "status", H5T_STD_I32LE, H5T_NATIVE_INT, cs);
            std::vector<long long> conn;
            std::vector<index_t> topo;
            int width = 0;
            for (index_t c = 0; c < nc; ++c)
                width = std::max<int>(
                    width, static_cast<int>(m.cell_node_offsets[c + 1] - m.cell_node_offsets[c]));
            for (index_t c = 0; c < nc; ++c) {
                const index_t a = m.cell_node_offsets[c], b = m.cell_node_offsets[c + 1];
                for (index_t j = a; j < a + width; ++j)
                    conn.push_back(j < b ? m.cell_nodes[j] : -1);
                ct.push_back(static_cast<int>(m.cell_type[c]));
                append_xdmf_cell(m, c, topo);
            }
            w.dataset(gc.get(), "nodes", H5T_STD_I64LE, H5T_NATIVE_LLONG, conn,
                      static_cast<hsize_t>(width));
            w.dataset(gc.get(), "type", H5T_STD_I32LE, H5T_NATIVE_INT, ct);
            w.dataset(gc.get(), "topology", H5T_STD_I64LE, H5T_NATIVE_INT64, topo);

            Hid gf = w.group(root.get(), "fringe");
            std::vector<long long> fn(g.fringe_node.begin(), g.fringe_node.end());
            std::vector<long long> fc(g.fringe_donor_cell.begin(), g.fringe_donor_cell.end());
            w.dataset(gf.get(), "node", H5T_STD_I64LE, H5T_NATIVE_LLONG, fn);
            w.dataset(gf.get(), "donor_grid", H5T_STD_I32LE, H5T_NATIVE_INT, g.fringe_donor_grid);
            w.dataset(gf.get(), "donor_cell", H5T_STD_I64LE, H5T_NATIVE_LLONG, fc);
            w.dataset(gf.get(), "weights", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g.fringe_weights,
                      kMaxCellNodes);

            const std::string p = "/" + g.name;
            x << "      <Grid Name=\"" << io_detail::xml_escape(g.name)
              << "\" GridType=\"Uniform\">\n"
              << "        <Topology TopologyType=\"Mixed\" NumberOfElements=\"" << nc << "\">\n";
            item(std::to_string(topo.size()), "Int", 8, p + "/cells/topology");
            x << "        </Topology>\n        <Geometry GeometryType=\"XYZ\">\n";
            item(std::to_string(n) + " 3", "Float", 8, p + "/nodes/xyz");
            x << "        </Geometry>\n";
            auto attr = [&](const char* name, const char* center, index_t len, const char* type,
                            int prec, const std::string& ds) {
                x << "        <Attribute Name=\"" << name << "\" AttributeType=\"Scalar\" Center=\""
                  << center << "\">\n";
                item(std::to_string(len), type, prec, ds);
                x << "        </Attribute>\n";
            };
            attr("wall_distance", "Node", n, "Float", 8, p + "/nodes/wall_distance");
            attr("node_status", "Node", n, "Int", 4, p + "/nodes/status");
            attr("cell_status", "Cell", nc, "Int", 4, p + "/cells/status");
            x << "      </Grid>\n";
        }
        auto attr_root = [&](const char* name, hid_t type, hid_t mem, const void* v) {
            Hid s(H5Screate(H5S_SCALAR), H5Sclose);
            Hid a(H5Acreate2(file.get(), name, type, s.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
            w.check(a.valid() && H5Awrite(a.get(), mem, v) >= 0, std::string("attribute ") + name);
        };
        const long long st = step;
        attr_root("step", H5T_STD_I64LE, H5T_NATIVE_LLONG, &st);
        attr_root("time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &time);
        {
            Hid t(H5Tcopy(H5T_C_S1), H5Tclose);
            H5Tset_size(t.get(), config_yaml.size() + 1);
            const char* s = config_yaml.c_str();
            attr_root("config", t.get(), t.get(), s);
        }
        w.check(file.close() >= 0, "closing the file");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    w.check(!ec, "renaming " + tmp);
    x << "    </Grid>\n" << kXdmfTail;
    io_detail::write_text_atomically(dir + "/" + stem + ".xdmf", x.str());
    return path;
}

}  // namespace ugks::overset
