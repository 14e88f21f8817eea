// User text quoted in an error line: control bytes escaped, long text shortened around what is left out.
#include <gtest/gtest.h>

#include "util/printable.h"

using ampbench::util::printable;

TEST(Printable, ControlBytesAreEscapedAndPrintableTextKept) {
  EXPECT_EQ(printable("plain text, ünïcode"), "plain text, ünïcode");
  EXPECT_EQ(printable(std::string("a\x1b[2Jb\0c\x7f", 9)), "a\\x1b[2Jb\\x00c\\x7f");
}

TEST(Printable, LongTextKeepsItsStartAndEndAndSaysHowMuchIsLeftOut) {
  const std::string key = "k" + std::string(1 << 20, 'x') + "z";
  const auto shown = printable(key, 20);
  EXPECT_EQ(shown, "kxxxxxxxxx ... (1048558 bytes) ... xxxxxxxxxz");
  EXPECT_EQ(printable(std::string(20, 'y'), 20), std::string(20, 'y'));  // at the limit: whole
}
