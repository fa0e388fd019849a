// Expressions of the position for case-file values (include/ugks/core/expression.hpp), by muParser.
#include "ugks/core/expression.hpp"

#include <muParser.h>

#include <cmath>

#include "ugks/core/error.hpp"

namespace ugks {

struct Expression::Impl {
    std::string text, what;
    mu::Parser parser;
    double x = 0, y = 0, z = 0;
    bool constant = true;
};

Expression::Expression(const std::string& text, const std::string& what)
    : m(std::make_unique<Impl>()) {
    m->text = text;
    m->what = what;
    try {
        m->parser.DefineVar("x", &m->x);
        m->parser.DefineVar("y", &m->y);
        m->parser.DefineVar("z", &m->z);
        m->parser.SetExpr(text);
        // muParser parses lazily: one evaluation (x = y = z = 0) reports syntax errors and
        // unknown names here, at parse time (a division by zero is not an error, just inf).
        (void)m->parser.Eval();
        m->constant = m->parser.GetUsedVar().empty();
    } catch (const mu::Parser::exception_type& e) {
        throw InputError(what + ": cannot use the expression '" + text + "': " + e.GetMsg() +
                         " (variables x, y, z; docs/usage.md)");
    }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

double Expression::eval(double x, double y, double z) const {
    m->x = x;
    m->y = y;
    m->z = z;
    double v = 0;
    try {
        v = m->parser.Eval();
    } catch (const mu::Parser::exception_type& e) {
        throw InputError(m->what + ": expression '" + m->text + "': " + e.GetMsg());
    }
    if (!std::isfinite(v))
        throw InputError(m->what + ": expression '" + m->text + "' is not finite here");
    return v;
}

bool Expression::constant() const { return m->constant; }
const std::string& Expression::text() const { return m->text; }

}  // namespace ugks
