// The .npz reader and writer agree with each other and with NumPy.
#include "npz.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "cli_harness.h"
#include "kiln/support/error.h"

namespace kiln::test {
namespace {

TEST(Npz, RoundTrip) {
  std::string dir = scratchDir();
  runtime::NDArray a = runtime::NDArray::empty({2, 3}, runtime::DataType::float32());
  runtime::NDArray b = runtime::NDArray::empty({5}, runtime::DataType::int64());
  runtime::NDArray c = runtime::NDArray::empty({}, runtime::DataType::float64());
  for (int i = 0; i < 6; ++i) a.data<float>()[i] = 0.5f * static_cast<float>(i);
  for (int i = 0; i < 5; ++i) b.data<int64_t>()[i] = -i;
  c.data<double>()[0] = 3.25;
  cli::writeNpz(dir + "/t.npz", {{"a", a}, {"b", b}, {"c", c}});
  cli::NamedArrays back = cli::readNpz(dir + "/t.npz");
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].first, "a");
  EXPECT_EQ(back[0].second.shape(), (runtime::Shape{2, 3}));
  EXPECT_EQ(back[1].second.dtype(), runtime::DataType::int64());
  EXPECT_EQ(back[1].second.data<int64_t>()[4], -4);
  EXPECT_EQ(back[2].second.ndim(), 0);
  EXPECT_EQ(back[2].second.data<double>()[0], 3.25);
}

TEST(Npz, ReadsAndIsReadByNumpy) {
  std::string dir = scratchDir();
  std::string py =
      "import numpy as np; "
      "np.savez_compressed('" +
      dir +
      "/np.npz', x=np.arange(12, dtype=np.float32).reshape(3,4), "
      "y=np.array([True, False]))";
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + py + "\"").c_str()), 0);
  cli::NamedArrays arrays = cli::readNpz(dir + "/np.npz");
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_EQ(arrays[0].second.shape(), (runtime::Shape{3, 4}));
  EXPECT_EQ(arrays[0].second.data<float>()[11], 11.0f);
  EXPECT_TRUE(arrays[1].second.dtype().isBool());

  cli::writeNpz(dir + "/ours.npz", arrays);
  std::string check = "import numpy as np; d=np.load('" + dir +
                      "/ours.npz'); "
                      "assert (d['x'] == np.arange(12).reshape(3,4)).all(); "
                      "assert d['y'].tolist() == [True, False]";
  EXPECT_EQ(std::system(("/usr/bin/python3 -c \"" + check + "\"").c_str()), 0);
}

TEST(Npz, CorruptFilesAreErrors) {
  std::string dir = scratchDir();
  std::ofstream(dir + "/junk.npz") << "PK not really a zip";
  EXPECT_THROW(cli::readNpz(dir + "/junk.npz"), Error);
  EXPECT_THROW(cli::readNpz(dir + "/missing.npz"), Error);
  runtime::NDArray a = runtime::NDArray::empty({64}, runtime::DataType::float32());
  for (int i = 0; i < 64; ++i) a.data<float>()[i] = static_cast<float>(i);
  cli::writeNpz(dir + "/t.npz", {{"a", a}});
  std::ifstream in(dir + "/t.npz", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t cut : {bytes.size() / 2, bytes.size() - 10}) {
    std::ofstream(dir + "/cut.npz", std::ios::binary) << bytes.substr(0, cut);
    EXPECT_THROW(cli::readNpz(dir + "/cut.npz"), Error) << cut;
  }
  bytes[100] ^= 0x55;  // inside the payload: the CRC catches it
  std::ofstream(dir + "/flip.npz", std::ios::binary) << bytes;
  EXPECT_THROW(cli::readNpz(dir + "/flip.npz"), Error);
}

}  // namespace
}  // namespace kiln::test
