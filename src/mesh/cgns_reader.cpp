// CGNS reader (mid-level library): first base, its unstructured zones (merged by coincident
// vertices), linear element sections (also MIXED), boundary patches from ZoneBC and from the
// boundary element sections no BC covers; coordinates in metres from DimensionalUnits
// (docs/usage.md "Mesh files").
#include <fstream>
#include <string>

#include "ugks/core/error.hpp"
#include "ugks/core/log.hpp"
#include "ugks/mesh/sources.hpp"

#if defined(UGKS_HAVE_CGNS)
#include <cgnslib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "reader_common.hpp"

namespace ugks {
namespace {

// CGNS 3.x builds may scope the enum values (CG_BUILD_SCOPE); CGNS_ENUMV handles both.
#ifndef CGNS_ENUMV
#define CGNS_ENUMV(e) e
#define CGNS_ENUMT(e) e
#endif

using ElementType = CGNS_ENUMT(ElementType_t);

struct LinearType {
    bool ok = false;
    CellType cell = CellType::Segment;
    int dim = -1;
    int nodes = 0;
};

// Linear CGNS element types. Their node orders equal Gmsh's (CGNS SIDS 3.3: BAR_2, TRI_3, QUAD_4,
// TETRA_4, PYRA_5, PENTA_6, HEXA_8 list corners the same way as Gmsh types 1, 2, 3, 4, 7, 6, 5).
struct CgnsLinear {
    ElementType type;
    CellType cell;
    int dim;
};
constexpr CgnsLinear kCgnsLinear[] = {
    {CGNS_ENUMV(NODE), CellType::Segment, 0},  // a 1D boundary point
    {CGNS_ENUMV(BAR_2), CellType::Segment, 1},  {CGNS_ENUMV(TRI_3), CellType::Triangle, 2},
    {CGNS_ENUMV(QUAD_4), CellType::Quad, 2},    {CGNS_ENUMV(TETRA_4), CellType::Tetra, 3},
    {CGNS_ENUMV(PYRA_5), CellType::Pyramid, 3}, {CGNS_ENUMV(PENTA_6), CellType::Prism, 3},
    {CGNS_ENUMV(HEXA_8), CellType::Hexa, 3}};

LinearType linear_type(ElementType t) {
    for (const CgnsLinear& e : kCgnsLinear)
        if (e.type == t)
            return {true, e.cell, e.dim, e.dim == 0 ? 1 : cell_type_info(e.cell).n_nodes};
    return {};
}

const char* type_name(ElementType t) {
    const char* n = cg_ElementTypeName(t);
    return n ? n : "unknown";
}

/// Open file handle, closed by the destructor (also when an error is thrown).
class CgnsFile {
public:
    CgnsFile(const std::string& path) : m_path(path) {
        if (cg_open(path.c_str(), CG_MODE_READ, &m_fn) != CG_OK) {
            throw InputError("CGNS file '" + path + "': cannot open as CGNS (" + cg_get_error() +
                             ")");
        }
    }
    ~CgnsFile() { cg_close(m_fn); }
    CgnsFile(const CgnsFile&) = delete;
    CgnsFile& operator=(const CgnsFile&) = delete;
    int fn() const { return m_fn; }
    void check(int status, const std::string& what) const {
        if (status != CG_OK) fail(what + ": " + cg_get_error());
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw InputError("CGNS file '" + m_path + "': " + what);
    }

private:
    std::string m_path;
    int m_fn = -1;
};

/// How the stored coordinates of one axis become metres: x_m = (stored * scale + offset) * unit.
struct AxisUnits {
    double scale = 1, offset = 0;  // DataConversion (raw = stored * scale + offset)
    double unit = 1;               // metres per raw unit
    std::string text;              // for the log line
};

// Metres per LengthUnits_t value; 0 for Null (none given), -1 for UserDefined (unknown size).
double metres_per(CGNS_ENUMT(LengthUnits_t) u) {
    switch (u) {
        case CGNS_ENUMV(Meter):
            return 1.0;
        case CGNS_ENUMV(Centimeter):
            return 0.01;
        case CGNS_ENUMV(Millimeter):
            return 0.001;
        case CGNS_ENUMV(Foot):
            return 0.3048;
        case CGNS_ENUMV(Inch):
            return 0.0254;
        case CGNS_ENUMV(LengthUnitsNull):
            return 0.0;
        default:
            return -1.0;
    }
}

// Two or five numbers of a DataConversion or DimensionalExponents node at the current cg_goto
// position, whatever their stored precision.
template <class Info, class Read>
bool read_reals(const CgnsFile& f, Info info, Read read, int n, double* out,
                const std::string& what) {
    CGNS_ENUMT(DataType_t) type;
    const int st = info(&type);
    if (st == CG_NODE_NOT_FOUND) return false;
    f.check(st, "reading the " + what);
    if (type == CGNS_ENUMV(RealSingle)) {
        float v[5] = {0, 0, 0, 0, 0};
        f.check(read(v), "reading the " + what);
        for (int i = 0; i < n; ++i) out[i] = v[i];
    } else {
        f.check(read(out), "reading the " + what);
    }
    return true;
}

/// The units of coordinate array `cname` of zone Z (CGNS SIDS 4.3-4.4 and 5.1: the DataClass and
/// DimensionalUnits nearest to the array win, array over GridCoordinates over zone over base;
/// DataConversion and DimensionalExponents belong to the array). Rules: docs/usage.md "Mesh
/// files", docs/decisions.md "CGNS length units".
AxisUnits coordinate_units(const CgnsFile& f, int B, int Z, const std::string& zone,
                           const char* cname) {
    const int fn = f.fn();
    CGNS_ENUMT(DataClass_t) dclass = CGNS_ENUMV(DataClassNull);
    CGNS_ENUMT(LengthUnits_t) length = CGNS_ENUMV(LengthUnitsNull);
    std::string class_at, units_at;
    bool have_class = false, have_units = false;
    const std::string levels[4] = {"array " + std::string(cname), "GridCoordinates",
                                   "zone '" + zone + "'", "base"};
    for (int level = 0; level < 4 && !(have_class && have_units); ++level) {
        int st = CG_OK;
        if (level == 0)
            st = cg_goto(fn, B, "Zone_t", Z, "GridCoordinates_t", 1, cname, 0, "end");
        else if (level == 1)
            st = cg_goto(fn, B, "Zone_t", Z, "GridCoordinates_t", 1, "end");
        else if (level == 2)
            st = cg_goto(fn, B, "Zone_t", Z, "end");
        else
            st = cg_goto(fn, B, "end");
        if (st != CG_OK) continue;
        if (!have_class) {
            CGNS_ENUMT(DataClass_t) c;
            const int r = cg_dataclass_read(&c);
            if (r == CG_OK) {
                dclass = c;
                class_at = levels[level];
                have_class = true;
            } else if (r != CG_NODE_NOT_FOUND) {
                f.check(r, "reading the DataClass of the " + levels[level]);
            }
        }
        if (!have_units) {
            CGNS_ENUMT(MassUnits_t) mass;
            CGNS_ENUMT(LengthUnits_t) len;
            CGNS_ENUMT(TimeUnits_t) time;
            CGNS_ENUMT(TemperatureUnits_t) temp;
            CGNS_ENUMT(AngleUnits_t) angle;
            const int r = cg_units_read(&mass, &len, &time, &temp, &angle);
            if (r == CG_OK) {
                length = len;
                units_at = levels[level];
                have_units = true;
            } else if (r != CG_NODE_NOT_FOUND) {
                f.check(r, "reading the DimensionalUnits of the " + levels[level]);
            }
        }
    }

    AxisUnits u;
    const std::string where = std::string(cname) + " of zone '" + zone + "'";
    f.check(cg_goto(fn, B, "Zone_t", Z, "GridCoordinates_t", 1, cname, 0, "end"),
            "going to " + where);
    double ex[5] = {0, 0, 0, 0, 0};
    if (read_reals(f, cg_exponents_info, cg_exponents_read, 5, ex,
                   "DimensionalExponents of " + where)) {
        if (ex[0] != 0 || ex[1] != 1 || ex[2] != 0 || ex[3] != 0 || ex[4] != 0) {
            f.fail(where +
                   " has DimensionalExponents (mass, length, time, temperature, angle) = (" +
                   detail::num(ex[0]) + ", " + detail::num(ex[1]) + ", " + detail::num(ex[2]) +
                   ", " + detail::num(ex[3]) + ", " + detail::num(ex[4]) +
                   "), not those of a length (0, 1, 0, 0, 0)");
        }
    }
    double conv[2] = {1, 0};
    const bool converted = read_reals(f, cg_conversion_info, cg_conversion_read, 2, conv,
                                      "DataConversion of " + where);
    const bool nondimensional = dclass == CGNS_ENUMV(NormalizedByUnknownDimensional) ||
                                dclass == CGNS_ENUMV(NondimensionalParameter) ||
                                dclass == CGNS_ENUMV(DimensionlessConstant);
    if (nondimensional) {
        u.text = std::string("nondimensional (DataClass ") + cg_DataClassName(dclass) + " of the " +
                 class_at + "): used as stored";
        return u;
    }
    if (dclass == CGNS_ENUMV(NormalizedByDimensional) && !converted) {
        f.fail(where + " is NormalizedByDimensional (DataClass of the " + class_at +
               ") without a DataConversion: the reference length it is normalized by is not "
               "known to this reader");
    }
    if (converted) {
        if (!std::isfinite(conv[0]) || !std::isfinite(conv[1]) || conv[0] == 0) {
            f.fail(where + " has DataConversion (ConversionScale, ConversionOffset) = (" +
                   detail::num(conv[0]) + ", " + detail::num(conv[1]) +
                   "): the scale must be a finite non-zero number");
        }
        u.scale = conv[0];
        u.offset = conv[1];
    }
    const double m = have_units ? metres_per(length) : 0.0;
    if (m < 0) {
        f.fail(where + " has LengthUnits " + cg_LengthUnitsName(length) +
               " (DimensionalUnits of the " + units_at +
               "): its size in metres is unknown; give Meter, Centimeter, Millimeter, "
               "Foot or Inch (or no DimensionalUnits and mesh.scale)");
    }
    std::string conv_text;
    if (converted)
        conv_text =
            ", DataConversion scale " + detail::num(u.scale) + " offset " + detail::num(u.offset);
    if (m == 0) {
        u.text = "no length unit given: used as stored" + conv_text;
    } else {
        u.unit = m;
        u.text = std::string("LengthUnits ") + cg_LengthUnitsName(length) +
                 " (DimensionalUnits of the " + units_at + "), x " + detail::num(m) + " to metres" +
                 conv_text;
    }
    return u;
}

/// A face element of a section, kept for ZoneBC lookups by element number.
struct FaceElement {
    std::array<index_t, 4> nodes{};
    int n = 0;
    int section = 0;
};

/// Sorted node list padded with -1: the same key for every node order of a face (insertion sort:
/// std::sort on 4 entries trips GCC 12's -Warray-bounds).
std::array<index_t, 4> face_key(const FaceElement& fe) {
    std::array<index_t, 4> key{-1, -1, -1, -1};
    for (int i = 0; i < fe.n; ++i) {
        int j = i;
        for (; j > 0 && key[j - 1] > fe.nodes[i]; --j) key[j] = key[j - 1];
        key[j] = fe.nodes[i];
    }
    return key;
}

/// A zone's place in the merged mesh.
struct ZoneRange {
    std::string name;
    index_t first_node = 0;
    std::size_t first_cell = 0, end_cell = 0;
};

/// The cell faces that only one cell of [first, end) has (the cells' own boundary), with their
/// nodes in the cell's order.
std::vector<FaceElement> cell_boundary(const detail::RawMesh& raw, std::size_t first,
                                       std::size_t end) {
    std::map<std::array<index_t, 4>, std::pair<int, FaceElement>> count;
    for (std::size_t c = first; c < end; ++c) {
        const index_t* cn = raw.cell_nodes.data() + raw.cell_node_offsets[c];
        for (int lf = 0; lf < cell_num_faces(raw.cell_type[c]); ++lf) {
            const LocalFace l = cell_local_face(raw.cell_type[c], lf);
            FaceElement fe;
            fe.n = l.n;
            for (int i = 0; i < l.n; ++i) fe.nodes[i] = cn[l.nodes[i]];
            auto& slot = count[face_key(fe)];
            if (slot.first++ == 0) slot.second = fe;
        }
    }
    std::vector<FaceElement> out;
    for (const auto& [key, slot] : count)
        if (slot.first == 1) out.push_back(slot.second);
    return out;
}

/// Append zone Z (unstructured) to `raw`: its vertices (metres), cells, and the boundary faces of
/// its BCs and of its sections without a BC. Node indices are global (offset by the nodes of the
/// zones before); patches are shared by name over the zones.
ZoneRange read_zone(const CgnsFile& f, const std::string& path, int B, int Z, int n_zones,
                    int cell_dim, detail::RawMesh& raw) {
    const int fn = f.fn();
    CGNS_ENUMT(ZoneType_t) zone_type;
    f.check(cg_zone_type(fn, B, Z, &zone_type), "reading the type of zone " + std::to_string(Z));
    char zone_name[64] = {0};
    cgsize_t zone_size[9] = {0};
    f.check(cg_zone_read(fn, B, Z, zone_name, zone_size), "reading zone " + std::to_string(Z));
    if (zone_type != CGNS_ENUMV(Unstructured)) {
        f.fail("zone '" + std::string(zone_name) +
               "' is structured; only unstructured zones are supported (convert the structured "
               "blocks to unstructured zones, e.g. hexahedra, in the mesh generator)");
    }
    ZoneRange zr;
    zr.name = zone_name;
    zr.first_node = static_cast<index_t>(raw.nodes.size());
    zr.first_cell = raw.cell_type.size();
    const index_t node0 = zr.first_node;
    // messages name the zone when there are several
    const std::string in_zone = n_zones > 1 ? " of zone '" + zr.name + "'" : std::string();
    const cgsize_t n_vertex = zone_size[0];
    if (n_vertex < 1) f.fail("zone '" + std::string(zone_name) + "' has no vertices");

    raw.nodes.resize(raw.nodes.size() + static_cast<std::size_t>(n_vertex), Vec3{0, 0, 0});
    for (cgsize_t i = 0; i < n_vertex; ++i) raw.node_label.push_back(static_cast<index_t>(i + 1));
    {
        int n_coords = 0;
        f.check(cg_ncoords(fn, B, Z, &n_coords), "reading the number of coordinate arrays");
        std::vector<double> buf(static_cast<std::size_t>(n_vertex));
        const char* axes[3] = {"CoordinateX", "CoordinateY", "CoordinateZ"};
        bool found[3] = {false, false, false};
        std::vector<std::string> unit_text;  // per axis read, for the log line
        for (int c = 1; c <= n_coords; ++c) {
            CGNS_ENUMT(DataType_t) dtype;
            char cname[64] = {0};
            f.check(cg_coord_info(fn, B, Z, c, &dtype, cname), "reading coordinate info");
            for (int d = 0; d < 3; ++d) {
                if (std::string(cname) != axes[d]) continue;
                cgsize_t rmin = 1, rmax = n_vertex;
                f.check(cg_coord_read(fn, B, Z, cname, CGNS_ENUMV(RealDouble), &rmin, &rmax,
                                      buf.data()),
                        std::string("reading ") + cname);
                const AxisUnits u = coordinate_units(f, B, Z, zone_name, cname);
                for (cgsize_t i = 0; i < n_vertex; ++i)
                    raw.nodes[static_cast<std::size_t>(node0 + i)][d] =
                        (buf[i] * u.scale + u.offset) * u.unit;
                unit_text.push_back(std::string(cname) + ": " + u.text);
                found[d] = true;
            }
        }
        for (int d = 0; d < cell_dim; ++d)
            if (!found[d]) f.fail(std::string("zone '") + zone_name + "' has no " + axes[d]);
        // One line when every axis has the same units, else one part per axis.
        bool same = true;
        for (const std::string& t : unit_text)
            same = same && t.substr(t.find(':')) == unit_text[0].substr(unit_text[0].find(':'));
        std::string text;
        if (same && !unit_text.empty()) {
            text = "coordinates" + unit_text[0].substr(unit_text[0].find(':'));
        } else {
            for (const std::string& t : unit_text) text += (text.empty() ? "" : "; ") + t;
        }
        log::info("CGNS file '{}', zone '{}': {}", path, zone_name, text);
    }

    // Element sections: cells of the base's cell dimension, faces of dimension cell_dim - 1.
    int n_sections = 0;
    f.check(cg_nsections(fn, B, Z, &n_sections), "reading the number of element sections");
    std::vector<std::string> section_names(static_cast<std::size_t>(n_sections) + 1);
    std::vector<bool> section_has_faces(static_cast<std::size_t>(n_sections) + 1, false);
    std::unordered_map<cgsize_t, FaceElement> faces_by_element;  // element number -> face
    for (int S = 1; S <= n_sections; ++S) {
        char sname[64] = {0};
        ElementType stype;
        cgsize_t start = 0, end = 0;
        int n_bnd = 0, parent_flag = 0;
        f.check(cg_section_read(fn, B, Z, S, sname, &stype, &start, &end, &n_bnd, &parent_flag),
                "reading element section " + std::to_string(S));
        section_names[static_cast<std::size_t>(S)] = sname;
        const std::string where = "element section '" + std::string(sname) + "'" + in_zone;
        cgsize_t data_size = 0;
        f.check(cg_ElementDataSize(fn, B, Z, S, &data_size), "reading the size of " + where);
        const cgsize_t n_elem = end - start + 1;
        std::vector<cgsize_t> conn(static_cast<std::size_t>(std::max<cgsize_t>(data_size, 1)));
        const bool mixed = stype == CGNS_ENUMV(MIXED);
        if (!mixed && !linear_type(stype).ok) {
            f.fail(where + " has element type " + type_name(stype) +
                   "; supported: NODE, BAR_2, TRI_3, QUAD_4, TETRA_4, PYRA_5, PENTA_6, HEXA_8 "
                   "and MIXED of these (linear elements only)");
        }
        if (mixed) {
            // CGNS 3.x stores MIXED as (type, nodes...) without offsets; 4.x also has
            // ElementStartOffset and only accepts cg_poly_elements_read.
            if (cg_elements_read(fn, B, Z, S, conn.data(), nullptr) != CG_OK) {
                std::vector<cgsize_t> offsets(static_cast<std::size_t>(n_elem) + 1);
                f.check(cg_poly_elements_read(fn, B, Z, S, conn.data(), offsets.data(), nullptr),
                        "reading " + where);
            }
        } else {
            f.check(cg_elements_read(fn, B, Z, S, conn.data(), nullptr), "reading " + where);
        }

        std::size_t k = 0;
        for (cgsize_t e = 0; e < n_elem; ++e) {
            ElementType t = stype;
            if (mixed) {
                if (k >= conn.size()) f.fail(where + ": MIXED data shorter than its element count");
                t = static_cast<ElementType>(conn[k++]);
            }
            const LinearType lt = linear_type(t);
            if (!lt.ok) {
                f.fail(where + ": element " + std::to_string(start + e) + " has type " +
                       type_name(t) + "; only linear elements are supported");
            }
            if (k + static_cast<std::size_t>(lt.nodes) > conn.size())
                f.fail(where + ": connectivity shorter than its element count");
            index_t v[kMaxCellTypeNodes];
            for (int i = 0; i < lt.nodes; ++i) {
                const cgsize_t node = conn[k++];
                if (node < 1 || node > n_vertex) {
                    f.fail(where + ": element " + std::to_string(start + e) + " refers to vertex " +
                           std::to_string(node) + ", but the zone has " + std::to_string(n_vertex) +
                           " vertices (1-based)");
                }
                v[i] = node0 + static_cast<index_t>(node - 1);
            }
            if (lt.dim == cell_dim) {
                raw.cell_type.push_back(lt.cell);
                raw.cell_nodes.insert(raw.cell_nodes.end(), v, v + lt.nodes);
                raw.cell_node_offsets.push_back(static_cast<index_t>(raw.cell_nodes.size()));
            } else if (lt.dim == cell_dim - 1) {
                FaceElement fe;
                fe.n = lt.nodes;
                fe.section = S;
                std::copy(v, v + lt.nodes, fe.nodes.begin());
                if (!faces_by_element.emplace(start + e, fe).second)
                    f.fail(where + ": element number " + std::to_string(start + e) +
                           " is used twice");
                section_has_faces[static_cast<std::size_t>(S)] = true;
            }
        }
    }
    zr.end_cell = raw.cell_type.size();
    if (zr.end_cell == zr.first_cell) {
        f.fail("no elements of the base's cell dimension " + std::to_string(cell_dim) + in_zone +
               " (the volume elements are missing)");
    }

    // Boundary patches.
    int n_bocos = 0;
    f.check(cg_nbocos(fn, B, Z, &n_bocos), "reading the number of boundary conditions");
    auto patch_of = [&](const std::string& pname) {
        auto it = std::find(raw.patch_names.begin(), raw.patch_names.end(), pname);
        if (it != raw.patch_names.end()) return static_cast<int>(it - raw.patch_names.begin());
        raw.patch_names.push_back(pname);
        return static_cast<int>(raw.patch_names.size()) - 1;
    };
    std::set<std::array<index_t, 4>> covered;  // faces some BC put into a patch
    auto add_face = [&](const FaceElement& fe, int patch) {
        covered.insert(face_key(fe));
        BoundaryFaceSpec b;
        b.nodes.assign(fe.nodes.begin(), fe.nodes.begin() + fe.n);
        b.patch = patch;
        raw.faces.push_back(std::move(b));
    };
    // Vertex BCs need the boundary faces of the zone's cells: collected lazily.
    std::vector<FaceElement> zone_boundary;
    bool have_zone_boundary = false;
    auto boundary_of_cells = [&]() -> const std::vector<FaceElement>& {
        if (!have_zone_boundary) zone_boundary = cell_boundary(raw, zr.first_cell, zr.end_cell);
        have_zone_boundary = true;
        return zone_boundary;
    };

    for (int BC = 1; BC <= n_bocos; ++BC) {
        char bname[64] = {0};
        CGNS_ENUMT(BCType_t) btype;
        CGNS_ENUMT(PointSetType_t) ptype;
        cgsize_t n_pnts = 0, normal_list_size = 0;
        int normal_index[3] = {0, 0, 0};
        CGNS_ENUMT(DataType_t) normal_dtype;
        int n_datasets = 0;
        f.check(cg_boco_info(fn, B, Z, BC, bname, &btype, &ptype, &n_pnts, normal_index,
                             &normal_list_size, &normal_dtype, &n_datasets),
                "reading boundary condition " + std::to_string(BC));
        const std::string where = "boundary condition '" + std::string(bname) + "'" + in_zone;
        CGNS_ENUMT(GridLocation_t) loc = CGNS_ENUMV(Vertex);
        f.check(cg_boco_gridlocation_read(fn, B, Z, BC, &loc),
                "reading the GridLocation of " + where);
        std::vector<cgsize_t> pnts(static_cast<std::size_t>(std::max<cgsize_t>(n_pnts, 2)));
        f.check(cg_boco_read(fn, B, Z, BC, pnts.data(), nullptr), "reading the points of " + where);

        std::string pname = bname;
        if (cg_goto(fn, B, "Zone_t", Z, "ZoneBC_t", 1, "BC_t", BC, "end") == CG_OK) {
            char family[64] = {0};
            if (cg_famname_read(family) == CG_OK && family[0] != '\0') pname = family;
        }
        const int patch = patch_of(pname);

        // The listed entities: a range (first, last) or a list.
        const bool range = ptype == CGNS_ENUMV(PointRange) || ptype == CGNS_ENUMV(ElementRange);
        const bool list = ptype == CGNS_ENUMV(PointList) || ptype == CGNS_ENUMV(ElementList);
        if (!range && !list)
            f.fail(where + ": point set type " + cg_PointSetTypeName(ptype) + " is not supported");
        std::vector<cgsize_t> ids;
        if (range) {
            if (n_pnts != 2) f.fail(where + ": a range must have 2 points");
            for (cgsize_t i = pnts[0]; i <= pnts[1]; ++i) ids.push_back(i);
        } else {
            ids.assign(pnts.begin(), pnts.begin() + n_pnts);
        }
        const bool elements = ptype == CGNS_ENUMV(ElementRange) ||
                              ptype == CGNS_ENUMV(ElementList) || loc == CGNS_ENUMV(FaceCenter) ||
                              loc == CGNS_ENUMV(EdgeCenter) || loc == CGNS_ENUMV(CellCenter) ||
                              loc == CGNS_ENUMV(IFaceCenter) || loc == CGNS_ENUMV(JFaceCenter) ||
                              loc == CGNS_ENUMV(KFaceCenter);
        if (elements) {
            for (cgsize_t id : ids) {
                auto it = faces_by_element.find(id);
                if (it == faces_by_element.end()) {
                    f.fail(where + " lists element " + std::to_string(id) +
                           ", which is not a boundary element of dimension " +
                           std::to_string(cell_dim - 1));
                }
                add_face(it->second, patch);
            }
        } else {
            // Vertex location (1D: the points are the faces): every cell boundary face whose nodes
            // all are in the list.
            std::vector<char> in(static_cast<std::size_t>(n_vertex), 0);
            for (cgsize_t id : ids) {
                if (id < 1 || id > n_vertex)
                    f.fail(where + " lists vertex " + std::to_string(id) + " out of range");
                in[static_cast<std::size_t>(id - 1)] = 1;
            }
            for (const FaceElement& fe : boundary_of_cells()) {
                bool all = true;
                for (int i = 0; i < fe.n; ++i)
                    all = all && in[static_cast<std::size_t>(fe.nodes[i] - node0)];
                if (all) add_face(fe, patch);
            }
        }
    }
    // Sections of face elements that no BC covers are patches named after the section: all of
    // them without ZoneBC, and with ZoneBC the sections none of whose faces a BC lists (exporters
    // that write a BC for some sections only; docs/decisions.md "CGNS boundary sections without a
    // BC"). A section with faces only inside the domain (no cell boundary face) is no patch.
    std::vector<std::pair<cgsize_t, FaceElement>> sorted(faces_by_element.begin(),
                                                         faces_by_element.end());
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<char> section_free(static_cast<std::size_t>(n_sections) + 1, 1);
    for (const auto& [id, fe] : sorted)
        if (covered.count(face_key(fe))) section_free[static_cast<std::size_t>(fe.section)] = 0;
    if (n_bocos > 0) {
        std::set<std::array<index_t, 4>> on_boundary;
        for (const FaceElement& fe : boundary_of_cells()) on_boundary.insert(face_key(fe));
        std::vector<char> touches(static_cast<std::size_t>(n_sections) + 1, 0);
        for (const auto& [id, fe] : sorted)
            if (on_boundary.count(face_key(fe))) touches[static_cast<std::size_t>(fe.section)] = 1;
        for (int S = 1; S <= n_sections; ++S)
            section_free[static_cast<std::size_t>(S)] &= touches[static_cast<std::size_t>(S)];
    }
    for (int S = 1; S <= n_sections; ++S) {
        const std::size_t s = static_cast<std::size_t>(S);
        if (!section_has_faces[s] || !section_free[s]) continue;
        patch_of(section_names[s]);
        if (n_bocos > 0)
            log::info(
                "CGNS file '{}': element section '{}'{} has no boundary condition; its faces "
                "form patch '{}'",
                path, section_names[s], in_zone, section_names[s]);
    }
    for (const auto& [id, fe] : sorted)
        if (section_free[static_cast<std::size_t>(fe.section)])
            add_face(fe, patch_of(section_names[static_cast<std::size_t>(fe.section)]));
    return zr;
}

/// Merge the coincident vertices of different zones (multi-block exports repeat the interface
/// vertices in every zone): two vertices of different zones are one when they are closer than
/// kMergeTolerance times the shorter of their local sizes (the shortest distance between two
/// vertices of a cell around each). Returns the representative of every node (itself when kept)
/// and the number merged.
constexpr double kMergeTolerance = 1e-6;

index_t merge_zone_vertices(const detail::RawMesh& raw, const std::vector<ZoneRange>& zones,
                            std::vector<index_t>& rep) {
    const std::size_t n = raw.nodes.size();
    std::vector<double> h(n, std::numeric_limits<double>::infinity());
    for (std::size_t c = 0; c < raw.cell_type.size(); ++c) {
        const index_t b = raw.cell_node_offsets[c], e = raw.cell_node_offsets[c + 1];
        for (index_t i = b; i < e; ++i)
            for (index_t j = i + 1; j < e; ++j) {
                const std::size_t u = static_cast<std::size_t>(raw.cell_nodes[i]);
                const std::size_t v = static_cast<std::size_t>(raw.cell_nodes[j]);
                const Vec3 d = detail::sub(raw.nodes[u], raw.nodes[v]);
                const double l = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                h[u] = std::min(h[u], l);
                h[v] = std::min(h[v], l);
            }
    }
    std::vector<int> zone_of(n, 0);
    for (std::size_t z = 0; z < zones.size(); ++z) {
        const std::size_t end =
            z + 1 < zones.size() ? static_cast<std::size_t>(zones[z + 1].first_node) : n;
        for (std::size_t i = static_cast<std::size_t>(zones[z].first_node); i < end; ++i)
            zone_of[i] = static_cast<int>(z);
    }
    // Spatial hash with cells of the largest tolerance: a partner is in one of the 27 cells
    // around a vertex. Vertices no cell uses have no size and are not merged.
    double cell = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (std::isfinite(h[i])) cell = std::max(cell, kMergeTolerance * h[i]);
    rep.resize(n);
    for (std::size_t i = 0; i < n; ++i) rep[i] = static_cast<index_t>(i);
    if (!(cell > 0)) return 0;
    auto bin = [&](const Vec3& x, int d) {
        return static_cast<long long>(std::floor(x[d] / cell));
    };
    std::map<std::array<long long, 3>, std::vector<index_t>> grid;
    index_t merged = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(h[i])) continue;
        const Vec3& x = raw.nodes[i];
        const std::array<long long, 3> k{bin(x, 0), bin(x, 1), bin(x, 2)};
        // the first earlier vertex of another zone within tolerance (its representative)
        index_t found = -1;
        for (long long dx = -1; dx <= 1 && found < 0; ++dx)
            for (long long dy = -1; dy <= 1 && found < 0; ++dy)
                for (long long dz = -1; dz <= 1 && found < 0; ++dz) {
                    auto it = grid.find({k[0] + dx, k[1] + dy, k[2] + dz});
                    if (it == grid.end()) continue;
                    for (index_t j : it->second) {
                        const std::size_t uj = static_cast<std::size_t>(j);
                        if (zone_of[uj] == zone_of[i]) continue;
                        const Vec3 d = detail::sub(x, raw.nodes[uj]);
                        const double dist = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                        if (dist <= kMergeTolerance * std::min(h[i], h[uj])) {
                            found = rep[uj];
                            break;
                        }
                    }
                }
        if (found >= 0) {
            rep[i] = found;
            ++merged;
        }
        grid[k].push_back(static_cast<index_t>(i));
    }
    return merged;
}

Mesh read(const std::string& path, double scale) {
    CgnsFile f(path);
    const int fn = f.fn();
    int n_bases = 0;
    f.check(cg_nbases(fn, &n_bases), "reading the number of bases");
    if (n_bases < 1) f.fail("no CGNSBase_t node");
    const int B = 1;  // the first base
    char name[64] = {0};
    int cell_dim = 0, phys_dim = 0;
    f.check(cg_base_read(fn, B, name, &cell_dim, &phys_dim), "reading base 1");
    if (cell_dim < 1 || cell_dim > 3)
        f.fail("base '" + std::string(name) + "' has cell dimension " + std::to_string(cell_dim) +
               " (must be 1, 2 or 3)");
    int n_zones = 0;
    f.check(cg_nzones(fn, B, &n_zones), "reading the number of zones");
    if (n_zones < 1) f.fail("base '" + std::string(name) + "' has no zones");
    detail::RawMesh raw;
    raw.dim = cell_dim;
    std::vector<ZoneRange> zones;
    for (int Z = 1; Z <= n_zones; ++Z) {
        zones.push_back(read_zone(f, path, B, Z, n_zones, cell_dim, raw));
        // Overset connectivity means overlapping zones, which merging cannot join.
        int n_conns = 0;
        if (cg_nconns(fn, B, Z, &n_conns) != CG_OK) n_conns = 0;
        for (int I = 1; I <= n_conns; ++I) {
            char cname[64] = {0}, donor[64] = {0};
            CGNS_ENUMT(GridLocation_t) loc;
            CGNS_ENUMT(GridConnectivityType_t) ctype;
            CGNS_ENUMT(PointSetType_t) pset, dpset;
            CGNS_ENUMT(ZoneType_t) dztype;
            CGNS_ENUMT(DataType_t) ddtype;
            cgsize_t npnts = 0, ndonor = 0;
            f.check(cg_conn_info(fn, B, Z, I, cname, &loc, &ctype, &pset, &npnts, donor, &dztype,
                                 &dpset, &ddtype, &ndonor),
                    "reading connectivity " + std::to_string(I) + " of zone '" + zones.back().name +
                        "'");
            if (ctype == CGNS_ENUMV(Overset))
                f.fail("zone '" + zones.back().name + "' has the Overset connectivity '" + cname +
                       "' (to zone '" + donor +
                       "'); overlapping zones are not merged: use mode: overset with one mesh "
                       "file per grid");
        }
    }
    if (n_zones > 1) {
        std::vector<index_t> rep;
        const index_t merged = merge_zone_vertices(raw, zones, rep);
        for (index_t& v : raw.cell_nodes) v = rep[static_cast<std::size_t>(v)];
        for (BoundaryFaceSpec& b : raw.faces)
            for (index_t& v : b.nodes) v = rep[static_cast<std::size_t>(v)];
        // Every face on the boundary of a zone must be a face of another zone (an interface, now
        // interior) or in a patch; otherwise the zones do not meet node to node.
        std::set<std::array<index_t, 4>> patched;
        for (const BoundaryFaceSpec& b : raw.faces) {
            FaceElement fe;
            fe.n = static_cast<int>(b.nodes.size());
            std::copy(b.nodes.begin(), b.nodes.end(), fe.nodes.begin());
            patched.insert(face_key(fe));
        }
        const std::vector<FaceElement> outer = cell_boundary(raw, 0, raw.cell_type.size());
        std::set<std::array<index_t, 4>> outer_keys;
        for (const FaceElement& fe : outer) outer_keys.insert(face_key(fe));
        index_t interface_faces = 0;
        for (const ZoneRange& z : zones) {
            index_t open = 0;
            Vec3 first{0, 0, 0};
            for (const FaceElement& fe : cell_boundary(raw, z.first_cell, z.end_cell)) {
                const auto key = face_key(fe);
                if (!outer_keys.count(key)) {
                    ++interface_faces;
                    continue;
                }
                if (patched.count(key)) continue;
                if (open++ == 0) {
                    for (int i = 0; i < fe.n; ++i)
                        for (int d = 0; d < 3; ++d)
                            first[d] += raw.nodes[static_cast<std::size_t>(fe.nodes[i])][d] / fe.n;
                }
            }
            if (open > 0) {
                f.fail("zone '" + z.name + "' has " + std::to_string(open) +
                       " boundary faces in no boundary condition that match no face of another "
                       "zone (the first at (" +
                       detail::num(first[0]) + ", " + detail::num(first[1]) + ", " +
                       detail::num(first[2]) +
                       ")): zones must meet vertex to vertex (coincident within " +
                       detail::num(kMergeTolerance) +
                       " of the local cell size); non-matching zone interfaces are not supported");
            }
        }
        // Cells that coincide after merging: overlapping zones (e.g. one block written twice).
        {
            std::set<std::vector<index_t>> seen;
            for (std::size_t z = 0; z < zones.size(); ++z)
                for (std::size_t c = zones[z].first_cell; c < zones[z].end_cell; ++c) {
                    std::vector<index_t> key(raw.cell_nodes.begin() + raw.cell_node_offsets[c],
                                             raw.cell_nodes.begin() + raw.cell_node_offsets[c + 1]);
                    std::sort(key.begin(), key.end());
                    if (!seen.insert(key).second)
                        f.fail("zone '" + zones[z].name + "' overlaps an earlier zone: its cell " +
                               std::to_string(c - zones[z].first_cell + 1) +
                               " has the vertices of a cell already read; zones must not overlap");
                }
        }
        // A patch whose faces all lie between zones (an interface section or BC of a multi-block
        // export) has become interior: it is no patch of the merged mesh.
        {
            std::vector<char> outside(raw.patch_names.size(), 0);
            for (const BoundaryFaceSpec& b : raw.faces) {
                FaceElement fe;
                fe.n = static_cast<int>(b.nodes.size());
                std::copy(b.nodes.begin(), b.nodes.end(), fe.nodes.begin());
                if (outer_keys.count(face_key(fe))) outside[static_cast<std::size_t>(b.patch)] = 1;
            }
            std::vector<int> renumber(raw.patch_names.size(), -1);
            std::vector<std::string> kept;
            for (std::size_t p = 0; p < raw.patch_names.size(); ++p) {
                if (outside[p]) {
                    renumber[p] = static_cast<int>(kept.size());
                    kept.push_back(raw.patch_names[p]);
                } else {
                    log::info(
                        "CGNS file '{}': patch '{}' lies between zones only (its faces are "
                        "interior after merging): no patch",
                        path, raw.patch_names[p]);
                }
            }
            std::vector<BoundaryFaceSpec> faces;
            for (BoundaryFaceSpec& b : raw.faces) {
                const int q = renumber[static_cast<std::size_t>(b.patch)];
                if (q < 0) continue;
                b.patch = q;
                faces.push_back(std::move(b));
            }
            raw.faces = std::move(faces);
            raw.patch_names = std::move(kept);
        }
        log::info(
            "CGNS file '{}': {} zones merged into one mesh: {} coincident vertices joined, {} "
            "interface faces between zones",
            path, n_zones, merged, interface_faces / 2);
    }
    return detail::finish_raw_mesh(std::move(raw), scale, "CGNS file '" + path + "'");
}

}  // namespace

Mesh read_cgns(const std::string& path, double scale) {
    if (const std::string why = input_file_problem(path); !why.empty())
        UGKS_INPUT_ERROR("CGNS file '" << path << "' " << why);
    if (!std::ifstream(path))
        UGKS_INPUT_ERROR("CGNS file '" << path << "': cannot open (missing or unreadable)");
    return read(path, scale);
}

}  // namespace ugks

#else  // no CGNS library in this build

namespace ugks {
Mesh read_cgns(const std::string& path, double /*scale*/) {
    UGKS_INPUT_ERROR("CGNS file '" << path << "': this build has no CGNS support (rebuild with "
                                   << "-DUGKS_ENABLE_CGNS=ON and the CGNS library installed)");
}
}  // namespace ugks

#endif
