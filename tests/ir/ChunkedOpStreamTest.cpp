// A generator's ops appended straight into another stream's buffer (ChunkedOpStream::appendTo):
// the ops next() left first, then chunks as refill() makes them, nothing added at the end.
#include <gtest/gtest.h>

#include <vector>

#include "sim/ir/OpStream.h"

namespace tessim {
namespace {

// Chunks of 3, 0 (an empty refill that goes on) and 2 ops; tags 1…5 in order.
class ThreeChunks : public ChunkedOpStream {
protected:
    bool refill(std::vector<Op>& out) override {
        static const unsigned sizes[] = {3, 0, 2};
        if (chunk_ == 3)
            return false;
        for (unsigned i = 0; i < sizes[chunk_]; ++i) {
            Op op;
            op.tag = ++tag_;
            out.push_back(op);
        }
        ++chunk_;
        return true;
    }

private:
    unsigned chunk_ = 0, tag_ = 0;
};

TEST(ChunkedOpStream, AppendToHandsOutWhatNextLeftThenTheRestAndAddsNothingAtTheEnd) {
    ThreeChunks s;
    ASSERT_NE(s.next(), nullptr);  // op 1 through next(); 2 and 3 stay in the stream's buffer
    Op outer;
    outer.tag = 100;
    std::vector<Op> out{outer};
    ASSERT_TRUE(s.appendTo(out));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[1].tag, 2u);
    EXPECT_EQ(out[2].tag, 3u);
    ASSERT_TRUE(s.appendTo(out));  // past the empty chunk, to the last one
    ASSERT_EQ(out.size(), 5u);
    EXPECT_EQ(out[3].tag, 4u);
    EXPECT_EQ(out[4].tag, 5u);
    EXPECT_FALSE(s.appendTo(out));
    EXPECT_EQ(out.size(), 5u);
    EXPECT_EQ(out[0].tag, 100u);
}

}  // namespace
}  // namespace tessim
