#pragma once
/// A scalar expression of the position (x, y, z) from the case file, e.g. a wall temperature
/// `T: "1 + 0.5 * x"` (docs/usage.md, "Boundary values that vary over a patch"). Parsed and
/// evaluated by muParser (libmuparser, Debian/Ubuntu package libmuparser-dev): the usual operators
/// + - * / ^, parentheses, comparisons, the ternary `c ? a : b`, constants `_pi` and `_e`, and the
/// functions sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, exp, ln, log10, sqrt, abs, sign,
/// rint, min, max, sum, avg. Host only (evaluated once per face at set-up).
#include <memory>
#include <string>

namespace ugks {

class Expression {
public:
    /// Compile `text`; throws InputError("<what>: <muParser's message>") when it does not parse
    /// or uses a variable other than x, y, z.
    Expression(const std::string& text, const std::string& what);
    ~Expression();
    Expression(Expression&&) noexcept;
    Expression& operator=(Expression&&) noexcept;

    /// The value at (x, y, z); throws InputError when it is not finite there (the caller names
    /// the point).
    double eval(double x, double y, double z) const;
    /// Whether the expression uses none of x, y, z (a constant).
    bool constant() const;
    const std::string& text() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

}  // namespace ugks
