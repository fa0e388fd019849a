// yaml_changes (include/ugks/core/yaml_diff.hpp): the leaf-by-leaf comparison a restart makes
// between a checkpoint's configuration and the case.
#include <gtest/gtest.h>

#include "ugks/core/error.hpp"
#include "ugks/core/yaml_diff.hpp"

namespace {

TEST(YamlChanges, SameDocumentsHaveNone) {
    const std::string t = "gas: {Kn: 0.1, omega: 0.81}\nmesh:\n  cells: [16, 16]\nname: a\n";
    EXPECT_TRUE(ugks::yaml_changes(t, t, "t").empty());
}

TEST(YamlChanges, NumbersCompareAsNumbersAndTextAsText) {
    EXPECT_TRUE(ugks::yaml_changes("a: 1\nb: 0.5\n", "a: 1.0\nb: 5e-1\n", "t").empty());
    const auto c = ugks::yaml_changes("a: yes\n", "a: true\n", "t");
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].path, "a");
}

TEST(YamlChanges, NamesEveryChangedLeafWithBothValues) {
    const auto c = ugks::yaml_changes(
        "gas: {Kn: 0.1, omega: 0.81}\nmesh: {cells: [16, 16]}\nold: 1\n",
        "gas: {Kn: 0.05, omega: 0.81}\nmesh: {cells: [16, 32]}\nnew: {x: 2}\n", "t");
    ASSERT_EQ(c.size(), 4u);
    EXPECT_EQ(c[0].path, "gas.Kn");
    EXPECT_EQ(c[0].before, "0.1");
    EXPECT_EQ(c[0].after, "0.05");
    EXPECT_EQ(c[1].path, "mesh.cells.1");
    EXPECT_EQ(c[1].before, "16");
    EXPECT_EQ(c[1].after, "32");
    EXPECT_EQ(c[2].path, "new.x");
    EXPECT_EQ(c[2].before, "(absent)");
    EXPECT_EQ(c[3].path, "old");
    EXPECT_EQ(c[3].after, "(absent)");
}

TEST(YamlChanges, ListLengthAndEmptyCollections) {
    const auto c = ugks::yaml_changes("p: [1, 2]\nq: []\n", "p: [1]\nq: [3]\n", "t");
    ASSERT_EQ(c.size(), 3u);  // p.0 is 1 on both sides: not listed
    EXPECT_EQ(c[0].path, "q.0");
    EXPECT_EQ(c[0].before, "(absent)");
    EXPECT_EQ(c[1].path, "p.1");
    EXPECT_EQ(c[1].after, "(absent)");
    EXPECT_EQ(c[2].path, "q");
    EXPECT_EQ(c[2].before, "[]");
}

TEST(YamlChanges, TextThatIsNotYamlIsAnInputError) {
    EXPECT_THROW(ugks::yaml_changes("a: [1,", "a: 1", "checkpoint 'x'"), ugks::InputError);
}

}  // namespace
