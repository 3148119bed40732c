// The .npz reader and writer agree with each other and with NumPy.
#include "npz.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

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

// Text: NumPy's fixed-width unicode arrays become string arrays (UTF-8) and back, both ways.
TEST(Npz, TextRoundTripsWithNumpy) {
  std::string dir = scratchDir();
  runPythonScript(dir, "write",
                  "import numpy as np\n"
                  "np.savez('" +
                      dir + "/np.npz', s=np.array([['a', 'b\\u00e9'], ['', 'z\\U0001F600']]))\n");
  cli::NamedArrays arrays = cli::readNpz(dir + "/np.npz");
  ASSERT_EQ(arrays.size(), 1u);
  const runtime::NDArray& s = arrays[0].second;
  ASSERT_TRUE(s.dtype().isString());
  EXPECT_EQ(s.shape(), (runtime::Shape{2, 2}));
  EXPECT_EQ(s.data<std::string>()[1], "b\xc3\xa9");
  EXPECT_EQ(s.data<std::string>()[2], "");
  EXPECT_EQ(s.data<std::string>()[3], "z\xf0\x9f\x98\x80");

  s.data<std::string>()[0] = "longer than before";
  cli::writeNpz(dir + "/ours.npz", arrays);
  runPythonScript(dir, "check",
                  "import numpy as np\n"
                  "d = np.load('" +
                      dir +
                      "/ours.npz')\n"
                      "assert d['s'].dtype == np.dtype('<U18'), d['s'].dtype\n"
                      "assert d['s'].tolist() == [['longer than before', 'b\\u00e9'], ['', "
                      "'z\\U0001F600']], d['s']\n");
  runtime::NDArray back = cli::parseNpy(cli::serializeNpy(s), "t.npy");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(back.data<std::string>()[i], s.data<std::string>()[i]);

  s.data<std::string>()[0] = "\xff";
  try {
    cli::serializeNpy(s);
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("string element 0 is not valid UTF-8"), std::string::npos)
        << e.what();
  }
}

// numpy writes ZIP64 entries for arrays of 2 GiB and more; zipfile.ZIP64_LIMIT = 0 makes it do
// so for small ones. Large stored arrays come back as views of the mapped file.
TEST(Npz, ReadsZip64ArchivesAndLargeArraysWithoutCopies) {
  std::string dir = scratchDir();
  std::string py =
      "import zipfile, numpy as np; zipfile.ZIP64_LIMIT = 0; "
      "np.savez('" +
      dir +
      "/z64.npz', a=np.arange(10, dtype=np.float32), b=np.ones((2,3), dtype=np.int64)); "
      "zipfile.ZIP64_LIMIT = 2**31 - 1; "
      "np.savez('" +
      dir + "/big.npz', big=np.arange(1 << 19, dtype=np.float32))";
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + py + "\"").c_str()), 0);
  cli::NamedArrays z64 = cli::readNpz(dir + "/z64.npz");
  ASSERT_EQ(z64.size(), 2u);
  EXPECT_EQ(z64[0].second.data<float>()[9], 9.0f);
  EXPECT_EQ(z64[1].second.shape(), (runtime::Shape{2, 3}));
  EXPECT_EQ(z64[1].second.data<int64_t>()[5], 1);

  // NumPy does not align the array's bytes: readNpz copies them when they are not aligned to the
  // element size, and reads them in place when they are.
  cli::NamedArrays big = cli::readNpz(dir + "/big.npz");
  ASSERT_EQ(big.size(), 1u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big[0].second.data()) % sizeof(float), 0u);
  const float* data = big[0].second.data<float>();
  EXPECT_EQ(data[(1 << 19) - 1], static_cast<float>((1 << 19) - 1));
  // A view of the mapping stays valid after the file is gone; the mapping goes with the array.
  std::remove((dir + "/big.npz").c_str());
  EXPECT_EQ(data[12345], 12345.0f);
}

// Whether ADDRESS lies in a mapping of the file PATH (from /proc/self/maps).
bool isMappedFrom(const void* address, const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  auto at = reinterpret_cast<uintptr_t>(address);
  while (std::getline(maps, line)) {
    if (line.size() < path.size() || line.compare(line.size() - path.size(), path.size(), path)) {
      continue;
    }
    uintptr_t begin = std::stoull(line.substr(0, line.find('-')), nullptr, 16);
    uintptr_t end = std::stoull(line.substr(line.find('-') + 1), nullptr, 16);
    if (at >= begin && at < end) return true;
  }
  return false;
}

TEST(Npz, LargeArraysWrittenByKilnAreReadInPlaceAndAligned) {
  std::string dir = scratchDir();
  runtime::NDArray small = runtime::NDArray::empty({3}, runtime::DataType::int8());
  runtime::NDArray big = runtime::NDArray::empty({(1 << 18) + 1}, runtime::DataType::float32());
  runtime::NDArray wide = runtime::NDArray::empty({1 << 17}, runtime::DataType::float64());
  for (int i = 0; i < 3; ++i) small.data<int8_t>()[i] = static_cast<int8_t>(i);
  for (int64_t i = 0; i < big.numel(); ++i) big.data<float>()[i] = static_cast<float>(i);
  for (int64_t i = 0; i < wide.numel(); ++i) wide.data<double>()[i] = -static_cast<double>(i);
  // An odd-length first entry, so nothing but the padding puts the next arrays on a boundary.
  cli::writeNpz(dir + "/w.npz", {{"s", small}, {"big_array", big}, {"w", wide}});
  cli::NamedArrays read = cli::readNpz(dir + "/w.npz");
  ASSERT_EQ(read.size(), 3u);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(read[i].second.data()) % 64, 0u) << read[i].first;
    EXPECT_TRUE(isMappedFrom(read[i].second.data(), dir + "/w.npz")) << read[i].first;
  }
  EXPECT_FALSE(isMappedFrom(read[0].second.data(), dir + "/w.npz"));  // small: copied
  EXPECT_EQ(read[0].second.data<int8_t>()[2], 2);
  EXPECT_EQ(read[1].second.data<float>()[1 << 18], static_cast<float>(1 << 18));
  EXPECT_EQ(read[2].second.data<double>()[(1 << 17) - 1], -static_cast<double>((1 << 17) - 1));
  // NumPy reads the padded archive too.
  std::string py = "import numpy as np; z = np.load('" + dir +
                   "/w.npz'); assert z['big_array'][262144] == 262144 and "
                   "z['w'][5] == -5 and list(z['s']) == [0, 1, 2]";
  EXPECT_EQ(std::system(("/usr/bin/python3 -c \"" + py + "\"").c_str()), 0);
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

TEST(Npz, ClaimedSizeBeyondWhatDeflateCanProduceIsRefused) {
  std::string dir = scratchDir();
  std::string py = "import numpy as np; np.savez_compressed('" + dir +
                   "/c.npz', x=np.zeros(1000, dtype=np.float32))";
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + py + "\"").c_str()), 0);
  std::ifstream in(dir + "/c.npz", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t central = bytes.find(std::string("PK\x01\x02", 4));
  ASSERT_NE(central, std::string::npos);
  for (int i = 0; i < 4; ++i) bytes[central + 24 + i] = static_cast<char>(i == 0 ? 0xf0 : 0xff);
  std::ofstream(dir + "/huge.npz", std::ios::binary) << bytes;
  try {
    cli::readNpz(dir + "/huge.npz");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("corrupt"), std::string::npos) << e.what();
  }
}

TEST(Npz, MalformedHeaderNumbersAreUserErrors) {
  std::string base("\x93NUMPY\x01\x00", 8);  // the length, or the literal stops at \x00
  for (const std::string& header :
       {std::string("{'descr': '<f99999999999', 'fortran_order': False, 'shape': (2,), }"),
        std::string(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }"),
        std::string("{'descr': '<b8', 'fortran_order': False, 'shape': (2,), }"),
        std::string(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387903, 4), }")}) {
    std::string npy = base;
    npy += static_cast<char>(header.size() & 0xff);
    npy += static_cast<char>(header.size() >> 8);
    npy += header + std::string(8, '\0');
    EXPECT_THROW(cli::parseNpy(npy, "t.npy"), Error) << header;
  }
}

TEST(Npz, ShapeWhoseSizeOverflowsNamesTheShape) {
  // 2^61 * 8 float32 elements are 2^66 bytes, which wraps to 0 in 64 bits.
  std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2305843009213693952, 8), }";
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  npy += static_cast<char>(header.size() & 0xff);
  npy += static_cast<char>(header.size() >> 8);
  npy += header;
  try {
    cli::parseNpy(npy, "t.npy");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("[2305843009213693952,8]"), std::string::npos) << message;
    EXPECT_NE(message.find("too large"), std::string::npos) << message;
    EXPECT_EQ(message.find("needs 0 bytes"), std::string::npos) << message;
  }
}

// A version 2.0 .npy (its header length has 32 bits) holding HEADER and then DATA.
std::string npyWithHeader(const std::string& header, const std::string& data = "") {
  std::string npy("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) npy += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return npy + header + data;
}

TEST(Npz, LongNpyHeadersAreErrorsNotStackOverflows) {
  // The header was matched with std::regex, which recurses once per character.
  std::string longDescr =
      "{'descr': '" + std::string(1 << 20, 'x') + "', 'fortran_order': False, 'shape': (1,), }";
  std::string manyDims = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 100000; ++i) manyDims += "1, ";
  manyDims += "), }";
  for (const auto& [header, expected] :
       {std::pair{longDescr, "unsupported .npy dtype"}, std::pair{manyDims, "dimensions"}}) {
    try {
      cli::parseNpy(npyWithHeader(header), "t.npy");
      FAIL() << "expected an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      EXPECT_LT(std::string(e.what()).size(), 1000u);
    }
  }
}

TEST(Npz, NpyHeaderParserAcceptsWhatNumpyWritesAndNamesWhatIsWrong) {
  runtime::NDArray a =
      cli::parseNpy(npyWithHeader("{\"shape\": ( 2 ,3 ) , 'descr':'<i2','fortran_order':False}  \n",
                                  std::string(12, '\x01')),
                    "t.npy");
  EXPECT_EQ(a.shape(), (runtime::Shape{2, 3}));
  EXPECT_EQ(a.dtype(), (runtime::DataType{kDLInt, 16, 1}));
  for (const auto& [header, expected] : {
           std::pair{"{'descr': '<f4', 'fortran_order': False}", "has no 'shape'"},
           std::pair{"{'descr': '<f4', 'fortran_order': Maybe, 'shape': ()}", "True or False"},
           std::pair{"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1)}", "dimension"},
           std::pair{"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", "key 'x'"},
           std::pair{"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}",
                     "quoted string"},
           std::pair{"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "'}'"},
       }) {
    try {
      cli::parseNpy(npyWithHeader(header), "t.npy");
      FAIL() << "expected an error for " << header;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

TEST(Npz, EntriesSharingTheirBytesAreRefused) {
  // Entries pointing at the same data let a small file expand far beyond deflate's own ratio.
  std::string dir = scratchDir();
  runtime::NDArray a = runtime::NDArray::empty({4}, runtime::DataType::float32());
  for (int i = 0; i < 4; ++i) a.data<float>()[i] = static_cast<float>(i);
  cli::writeNpz(dir + "/one.npz", {{"a", a}});
  std::ifstream in(dir + "/one.npz", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t central = bytes.find(std::string("PK\x01\x02", 4));
  ASSERT_NE(central, std::string::npos);
  std::string entry = bytes.substr(central, 46 + 5);  // "a.npy"
  std::string twin = entry;
  twin[46] = 'b';
  std::string end = bytes.substr(bytes.size() - 22);
  end[8] = end[10] = 2;                           // entries on this disk, in total
  end[12] = static_cast<char>(2 * entry.size());  // size of the central directory
  std::string doubled = bytes.substr(0, central) + entry + twin + end;
  try {
    cli::parseNpz(doubled.data(), doubled.size(), "twin.npz");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("overlaps another entry"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cli::parseNpz(bytes.data(), bytes.size(), "one.npz").size(), 1u);
}

}  // namespace
}  // namespace kiln::test
